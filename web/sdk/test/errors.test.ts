// describeError and the retry policy on the server's message formats
// (docs/rules.md#stable-error-codes), without a server: the formats the live tests
// cannot provoke cheaply (a second code, Dou Dizhu's INVALID_ARGUMENT codes, settling).

import assert from "node:assert/strict";
import { test } from "node:test";
import { Code, ConnectError, DEFAULT_RETRY, describeError, retryDelay } from "../src/index.js";

const error = (code: Code, message: string, hint?: number) =>
  new ConnectError(message, code, hint === undefined ? undefined : new Headers({ "retry-after-ms": String(hint) }));

test("stable codes, a second code, fields and hints", () => {
  const capped = describeError(error(Code.FailedPrecondition, "not_eligible: daily_loss_cap: today's losses reached the cap"));
  assert.equal(capped.code, "not_eligible");
  assert.equal(capped.reason, "daily_loss_cap");
  assert.deepEqual(capped.codes, ["not_eligible", "daily_loss_cap"]);
  assert.equal(capped.message, "today's losses reached the cap");

  const cards = describeError(error(Code.InvalidArgument, "invalid_combination: those cards are not a combination"));
  assert.equal(cards.code, "invalid_combination", "Dou Dizhu's INVALID_ARGUMENT codes are codes, not fields");
  assert.equal(cards.field, undefined);

  const name = describeError(error(Code.InvalidArgument, "name: must not end with a space"));
  assert.equal(name.field, "name");
  assert.equal(name.code, "invalid_argument");
  assert.equal(name.message, "name must not end with a space");

  const turn = describeError(error(Code.FailedPrecondition, "not_your_turn: not your turn: seat 2 is to act"));
  assert.equal(turn.message, "not your turn: seat 2 is to act", "only codes are taken off, not sentences with a colon");

  const settling = describeError(error(Code.Unavailable, "settling: the last game is not settled by the ledger yet; retry shortly", 250));
  assert.equal(settling.code, "settling");
  assert.equal(settling.retryAfterMs, 250);

  const down = describeError(new TypeError("fetch failed"));
  assert.equal(down.grpcCode, Code.Unavailable, "a failed fetch reads as UNAVAILABLE");
  assert.equal(down.code, "unavailable");
  assert.equal(describeError(error(Code.Internal, "internal error (incident 0123abcd4567); the operators have the details")).code, "internal");
});

test("the retry policy: hints waited, long hints and refusals not, settling for longer", () => {
  const opts = { ...DEFAULT_RETRY };
  const now = Date.now();
  assert.equal(retryDelay(error(Code.ResourceExhausted, "too many requests", 40), 1, opts, now), 40);
  assert.equal(retryDelay(error(Code.ResourceExhausted, "too_many_codes: wait", 600000), 1, opts, now), null, "past maxHintMs");
  assert.equal(retryDelay(error(Code.ResourceExhausted, "queue full"), 1, opts, now), null, "no hint: not retried");
  assert.equal(retryDelay(error(Code.FailedPrecondition, "occupied: h8 is already occupied"), 1, opts, now), null);
  assert.equal(retryDelay(error(Code.Unavailable, "redis failing over", 500), 4, opts, now), null, "at most maxRetries");
  const settling = error(Code.Unavailable, "settling: not settled yet", 250);
  assert.equal(retryDelay(settling, 30, opts, now), 250, "settling retried past maxRetries");
  assert.equal(retryDelay(settling, 30, opts, now - 30000), null, "but not past settlingForMs");
  assert.equal(retryDelay(error(Code.Aborted, "table changing too fast"), 1, opts, now), 50);
  assert.equal(retryDelay(new TypeError("fetch failed"), 2, opts, now), 500, "an unreachable server: backoff");
});
