// Connecting: /config.json, a development token, the account read through the typed
// ledger client; a token refused by the server is replaced once by the token provider.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Code, connect, devToken, describeError, playerOf, requestId, type TokenReason } from "../src/index.js";
import { operator, player, playerName, site, WEB } from "./helpers.js";

test("connects with a development token and reads the account; an operator's grant shows in it", async () => {
  const config = await site();
  for (const url of Object.values(config.services)) assert.match(url, /^https?:\/\//, "config.json names every service");
  assert.equal(config.devTokens, true, "the test platform mints development tokens");
  const id = playerName("account");
  const token = await devToken(WEB, id);
  assert.equal(playerOf(token), id, "the token names the player");
  const me = connect({ services: config.services, token });
  assert.equal(me.player(), id);
  const before = (await me.ledger.getAccount({})).account;
  assert.ok(before, "GetAccount answers the account");
  assert.equal(before.playerId, id);
  await (await operator()).ledger.grantSilver({ requestId: requestId(), playerId: id, amountSilver: 1234n, reason: "sdk test" });
  const after = (await me.ledger.getAccount({})).account!;
  assert.equal(after.balanceSilver - before.balanceSilver, 1234n, "int64 fields are bigint");
});

test("a token the server refuses is replaced once through the token provider, and the call made again", async () => {
  const { services } = await site();
  const id = playerName("refresh");
  const asked: TokenReason[] = [];
  const me = connect({
    services,
    tokenProvider: async (reason) => {
      asked.push(reason);
      // The first token is malformed: the server answers UNAUTHENTICATED.
      return reason === "initial" ? "not.a.token" : devToken(WEB, id);
    },
  });
  const { account } = await me.ledger.getAccount({});
  assert.equal(account?.playerId, id);
  assert.deepEqual(asked, ["initial", "refresh"]);
  assert.equal(me.player(), id);

  // Without a provider the refusal is explained by code.
  const stale = connect({ services, token: "not.a.token" });
  const refused = await stale.ledger.getAccount({}).then(() => null, (err: unknown) => describeError(err));
  assert.ok(refused, "a malformed token is refused");
  assert.equal(refused.grpcCode, Code.Unauthenticated);
  assert.equal(refused.code, "unauthenticated");
});

test("a player's session: a second client of the same player sees the same account", async () => {
  const a = await player("same");
  const again = connect({ services: (await site()).services, token: await a.token() });
  assert.equal((await again.ledger.getAccount({})).account?.playerId, a.id);
});
