// Retry hints honoured: the per-player rate limit (RESOURCE_EXHAUSTED with
// `retry-after-ms`) is waited out, each retry at least the hinted time after the
// refusal; a hint too long to wait (friends' codes tried too often) is not waited for
// but explained: code `too_many_codes`, `retryAfterMs`.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Code, describeError, retrying, type Interceptor, type RetryInfo } from "../src/index.js";
import { player } from "./helpers.js";

test("the rate limit's retry hint is waited out: every call of a burst succeeds, each retry after at least the hint", async () => {
  // Every attempt as the server saw it: when it was sent, when it was answered, its hint.
  const attempts = new Map<Headers, { sent: number; answered: number; hint: number | null }[]>();
  const timing: Interceptor = (next) => async (req) => {
    const list = attempts.get(req.header) ?? [];
    attempts.set(req.header, list);
    const at = { sent: performance.now(), answered: 0, hint: null as number | null };
    list.push(at);
    try {
      return await next(req);
    } catch (err) {
      at.hint = describeError(err).retryAfterMs ?? null;
      throw err;
    } finally {
      at.answered = performance.now();
    }
  };
  const retries: RetryInfo[] = [];
  const me = await player("burst", { interceptors: [timing], retry: { maxRetries: 40, onRetry: (info) => retries.push(info) } });
  await me.token();
  // More calls at once than the burst allows (GAMEHUB_PLAYER_RATE_BURST, 100 by default).
  // Each hint is the time until the next token: the refused calls retry together and at
  // least one gets through per round, so none needs more rounds than there are refused calls.
  const answers = await Promise.all(Array.from({ length: 120 }, () => me.ledger.getAccount({})));
  assert.ok(answers.every((r) => r.account?.playerId === me.id), "every call of the burst succeeded");
  assert.ok(retries.length > 0, "the burst met the rate limit");
  for (const r of retries) {
    assert.equal(r.error.code, Code.ResourceExhausted);
    assert.equal(describeError(r.error).retryAfterMs, r.waitMs, "the wait is the server's hint");
    assert.equal(r.hintMs, r.waitMs);
    assert.equal(r.method, "gamehub.ledger.v1.LedgerService/GetAccount");
  }
  let checked = 0;
  for (const list of attempts.values()) {
    for (let i = 1; i < list.length; i++) {
      const refused = list[i - 1]!;
      assert.ok(refused.hint !== null, "only refusals with a hint are retried");
      const waited = list[i]!.sent - refused.answered;
      assert.ok(waited >= refused.hint - 1, `retried ${waited.toFixed(1)} ms after a hint of ${refused.hint} ms`);
      checked += 1;
    }
  }
  assert.equal(checked, retries.length);

  // Without retries, the same burst shows the refusal, explained.
  const refused = await Promise.allSettled(Array.from({ length: 140 }, () => me.ledger.getAccount({}, retrying(false))));
  const failure = refused.find((r) => r.status === "rejected");
  assert.ok(failure, "a burst without retries meets the limit");
  const why = describeError(failure.reason);
  assert.equal(why.grpcCode, Code.ResourceExhausted);
  assert.equal(why.code, "resource_exhausted");
  assert.ok(why.retryAfterMs !== undefined && why.retryAfterMs > 0, "the hint is exposed");
});

test("too many unknown friends' codes: RESOURCE_EXHAUSTED too_many_codes, its long hint exposed and not waited for", async () => {
  const me = await player("codes");
  const code = () => Array.from({ length: 6 }, () => "23456789ABCDEFGHJKMNPQRSTUVWXYZ"[Math.floor(Math.random() * 31)]).join("");
  // GAMEHUB_FRIENDS_CODE_MISSES: 10 unknown codes per window by default.
  let misses = 0;
  for (; misses < 50; misses++) {
    const why = await me.matchmaking.joinFriendsTable({ code: code() }).then(
      () => assert.fail("no table has a random code"),
      (err: unknown) => describeError(err),
    );
    if (why.code === "too_many_codes") {
      assert.equal(why.grpcCode, Code.ResourceExhausted);
      assert.ok(why.retryAfterMs !== undefined && why.retryAfterMs >= 1000, `a hint of ${why.retryAfterMs} ms`);
      assert.ok(!/too_many_codes/.test(why.message) && why.message.length > 0, why.message);
      break;
    }
    assert.equal(why.grpcCode, Code.NotFound);
    assert.equal(why.code, "unknown_code");
  }
  assert.ok(misses > 0 && misses < 50, `refused after ${misses} unknown codes`);
  // The SDK does not sleep through a hint longer than maxHintMs (5 s by default).
  const started = performance.now();
  const again = await me.matchmaking.joinFriendsTable({ code: code() }).then(
    () => assert.fail("still refused"),
    (err: unknown) => describeError(err),
  );
  assert.equal(again.code, "too_many_codes");
  assert.ok(performance.now() - started < 1000, "answered at once, not after the hint");
});
