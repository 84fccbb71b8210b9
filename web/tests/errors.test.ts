// A player never sees a stable code (docs/rules.md#stable-error-codes): every status's
// message reaches the player as its sentence alone. Needs no server and no browser.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Code, ConnectError } from "@connectrpc/connect";
import { explain, explainFriends, explainTournament, fieldRefusal, friendsWords, stableCode, waitWords, withoutCodes } from "../src/errors.js";
import { setLang, stringsOf } from "../src/i18n/index.js";

// The server's sentences are English: the English page shows them; the Chinese page
// (the default) says the client's own words for their codes (the last tests).
setLang("en");
const FRIENDS_WORDS = stringsOf("en").errors.friends;

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

test("friends' tables' refusals are said in the client's words, never with their codes", () => {
  const friends = (code: Code, message: string, metadata?: HeadersInit) =>
    explainFriends(new ConnectError(message, code, metadata));
  assert.equal(friends(Code.NotFound, "unknown_code: no table has the code \"K7QX2M\""), FRIENDS_WORDS.unknown_code);
  assert.equal(friends(Code.FailedPrecondition, "table_closed: the table K7QX2M closed"), FRIENDS_WORDS.table_closed);
  assert.equal(friends(Code.FailedPrecondition, "table_full: every seat is taken"), FRIENDS_WORDS.table_full);
  assert.equal(
    friends(Code.FailedPrecondition, "paid_friends_tables_off: the operator has not turned paid friends' tables on"),
    FRIENDS_WORDS.paid_friends_tables_off,
  );
  assert.equal(friends(Code.PermissionDenied, "not_owner: only the owner may close the table"), FRIENDS_WORDS.not_owner);
  for (const [code, words] of Object.entries(friendsWords())) {
    assert.doesNotMatch(words, /[a-z]+_[a-z]+/, `${code}'s words hold no code`);
  }
});

test("too many codes tells how long to wait, from the retry-after-ms hint", () => {
  const err = new ConnectError("too_many_codes: too many unknown codes; wait", Code.ResourceExhausted, { "retry-after-ms": "420000" });
  assert.equal(explainFriends(err), "Too many codes that no table has were tried. Try again in 7 minutes.");
  const soon = new ConnectError("too_many_codes: too many unknown codes; wait", Code.ResourceExhausted, { "retry-after-ms": "30000" });
  assert.match(explainFriends(soon), /in 30 seconds/);
  assert.equal(explainFriends(new ConnectError("too_many_codes: wait", Code.ResourceExhausted)), FRIENDS_WORDS.too_many_codes);
  assert.equal(waitWords(0), "");
  assert.equal(waitWords(1000), "in 1 second");
});

test("a friends' table refusal whose sentence names something keeps the server's sentence", () => {
  assert.equal(
    explainFriends(new ConnectError("already_seated: ann sits at table gt-0193; leave it first", Code.FailedPrecondition)),
    "ann sits at table gt-0193; leave it first",
  );
  assert.equal(
    explainFriends(new ConnectError("not_eligible: daily_loss_cap: today's losses reached the cap", Code.FailedPrecondition)),
    "today's losses reached the cap",
  );
  assert.equal(stableCode("not_eligible: daily_loss_cap: x"), "not_eligible");
  assert.equal(stableCode("no code here"), "");
});

test("a refused name shows the sentence after the field's name, beside the field", () => {
  const refusal = (message: string, code = Code.InvalidArgument) => fieldRefusal(new ConnectError(message, code), "name");
  assert.equal(refusal("name: at most 12 characters; this one has 13"), "At most 12 characters; this one has 13");
  assert.equal(refusal("name: must not end with a space"), "Name must not end with a space");
  assert.equal(refusal("name: is longer than 12 characters"), "Name is longer than 12 characters");
  assert.equal(refusal("player_id: is longer than 64 characters"), null, "another field");
  assert.equal(refusal("name: x", Code.PermissionDenied), null, "not a malformed field");
  assert.equal(fieldRefusal(new Error("name: x"), "name"), null);
});

test("in Chinese a refusal is said in the client's words for its code, and never names a field", () => {
  setLang("zh-CN");
  try {
    const zh = stringsOf("zh-CN").errors;
    assert.equal(refused(Code.FailedPrecondition, "occupied: h8 is already occupied"), zh.codes.occupied);
    assert.equal(
      refused(Code.FailedPrecondition, "not_eligible: insufficient_balance: balance 0 silver is below the room's minimum of 1000 silver"),
      zh.codes.insufficient_balance,
    );
    assert.equal(refused(Code.FailedPrecondition, "live_ticket: player ann already has a live ticket gomoku-free.0193"), zh.codes.live_ticket);
    assert.equal(refused(Code.InvalidArgument, "room_id: is required"), zh.badRequest, "no field name");
    assert.equal(refused(Code.FailedPrecondition, "some_new_code: a sentence in English"), zh.refused);
    assert.equal(refused(Code.Internal, "incident 0193abc"), zh.internal);
    assert.equal(explainFriends(new ConnectError("table_full: every seat is taken", Code.FailedPrecondition)), zh.friends.table_full);
    const wait = new ConnectError("too_many_codes: wait", Code.ResourceExhausted, { "retry-after-ms": "420000" });
    assert.equal(explainFriends(wait), "试了太多不存在的房间号，请 7 分钟后再试。");
    assert.equal(fieldRefusal(new ConnectError("name: must not end with a space", Code.InvalidArgument), "name"), zh.badRequest);
    for (const words of [...Object.values(zh.codes), ...Object.values(zh.friends)]) {
      assert.doesNotMatch(words, /[a-z]+_[a-z]+/, `no code in ${words}`);
    }
  } finally {
    setLang("en");
  }
});

test("a forbidden point's refusal keeps the point and the rule in Chinese", () => {
  setLang("zh-CN");
  try {
    assert.equal(refused(Code.FailedPrecondition, "forbidden: g8 is forbidden for black: double three"), "G8 是黑方禁手（三三），不能下在这里。");
    assert.equal(refused(Code.FailedPrecondition, "forbidden: k10 is forbidden for black: overline"), "K10 是黑方禁手（长连），不能下在这里。");
  } finally {
    setLang("en");
  }
});

test("a tournament's refusals: full and not registering by their codes, a short balance as the entry fee's", () => {
  const tournament = (message: string, code = Code.FailedPrecondition) => explainTournament(new ConnectError(message, code));
  // English: the server's sentence without its codes.
  assert.equal(tournament("full: all 8 places are taken"), "all 8 places are taken");
  assert.equal(tournament("not_registering: the tournament is running"), "the tournament is running");
  assert.equal(
    tournament("not_eligible: insufficient_balance: balance 5 silver is below the entry fee of 10 silver"),
    "balance 5 silver is below the entry fee of 10 silver",
  );
  setLang("zh-CN");
  try {
    const zh = stringsOf("zh-CN").errors;
    assert.equal(tournament("full: all 8 places are taken"), zh.codes.full);
    assert.equal(refused(Code.FailedPrecondition, "full: all 8 places are taken"), zh.codes.full, "explain knows the code too");
    assert.equal(tournament("not_registering: the tournament is running; a player who does not come to a game loses it"), zh.codes.not_registering);
    assert.equal(
      tournament("not_eligible: insufficient_balance: balance 5 silver is below the entry fee of 10 silver"),
      zh.tournament.insufficient_balance,
      "the fee, not a room",
    );
    assert.equal(tournament("p-1 is not registered", Code.NotFound), zh.refused);
    for (const words of Object.values(zh.tournament)) assert.doesNotMatch(words, /[a-z]+_[a-z]+/, `no code in ${words}`);
  } finally {
    setLang("en");
  }
});
