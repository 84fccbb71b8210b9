// A player never sees a stable code (docs/rules.md#stable-error-codes): every status's
// message reaches the player as its sentence alone. Needs no server and no browser.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Code, ConnectError } from "@connectrpc/connect";
import { explain, withoutCodes } from "../src/errors.js";

const refused = (code: Code, message: string) => explain(new ConnectError(message, code));

test("codes are stripped from every refusal a player sees, whatever its status", () => {
  assert.equal(
    refused(Code.InvalidArgument, "invalid_combination: those cards are not a combination"),
    "those cards are not a combination",
  );
  assert.equal(refused(Code.FailedPrecondition, "occupied: h8 is already occupied"), "h8 is already occupied");
  assert.equal(
    refused(Code.FailedPrecondition, "not_eligible: insufficient_balance: balance 0 silver is below the room's minimum of 1000 silver"),
    "balance 0 silver is below the room's minimum of 1000 silver",
  );
  assert.equal(
    refused(Code.FailedPrecondition, "live_ticket: player ann already has a live ticket gomoku-free.0193; cancel it or wait for it to end"),
    "player ann already has a live ticket gomoku-free.0193; cancel it or wait for it to end",
  );
  assert.equal(refused(Code.NotFound, "unknown room \"x\"; ListRooms names the rooms"), "unknown room \"x\"; ListRooms names the rooms");
  assert.equal(refused(Code.ResourceExhausted, "rate_limited: too many calls; retry shortly"), "too many calls; retry shortly");
});

test("a malformed field keeps its name, in words", () => {
  assert.equal(refused(Code.InvalidArgument, "room_id: is required"), "room id is required");
  assert.equal(refused(Code.InvalidArgument, "game_id: is longer than 64 characters"), "game id is longer than 64 characters");
});

test("a sentence keeps its own colons, and words with spaces are not codes", () => {
  assert.equal(withoutCodes("not_your_turn: not your turn: seat 2 is to act"), "not your turn: seat 2 is to act");
  assert.equal(withoutCodes("table_closed: the table is closed: alice left"), "the table is closed: alice left");
  assert.equal(withoutCodes("stakes.room_id: is required"), "stakes.room_id: is required");
});

test("errors meant for operators become plain words", () => {
  assert.equal(refused(Code.Internal, "incident 0193abc"), "Something went wrong on the server. Try again in a moment.");
  assert.equal(refused(Code.Unavailable, "settling: the last game is not settled"), "The game server cannot be reached right now. Retrying may help.");
});
