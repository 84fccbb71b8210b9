// How players and friends' table codes read (docs/rules.md#names, #friends-tables):
// a name or else the id, bots marked, codes as typed read as issued. No server, no browser.

import { test } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { GameType, PlayerProfileSchema, TableSummarySchema } from "../src/gen/gamehub/common/v1/common_pb.js";
import {
  BOT_MARK,
  codeFromSearch,
  codeProblem,
  displayName,
  isBot,
  isCode,
  normaliseCode,
  playerLine,
  shareLink,
  standingLine,
} from "../src/names.js";
import { stageLine } from "../src/tables.js";

test("a player is shown by its name, else by its id", () => {
  assert.equal(displayName("p-81", create(PlayerProfileSchema, { name: "张三" })), "张三");
  assert.equal(displayName("p-81", create(PlayerProfileSchema, { name: "" })), "p-81");
  assert.equal(displayName("p-81", undefined), "p-81");
  assert.equal(displayName("p-81", { name: "Zoë" }), "Zoë");
});

test("bots are marked as bots, by their profile or by their id", () => {
  const bot = create(PlayerProfileSchema, { bot: true });
  assert.ok(isBot("bot-1a2b", bot));
  assert.ok(isBot("bot-1a2b", undefined));
  assert.ok(!isBot("robert", create(PlayerProfileSchema, { name: "Bob" })));
  assert.equal(playerLine("bot-1a2b", bot, false), `bot-1a2b (${BOT_MARK})`);
  assert.equal(playerLine("p-81", create(PlayerProfileSchema, { name: "李四" }), true), "李四 (you)");
  assert.equal(playerLine("p-81", create(PlayerProfileSchema, { name: "李四" }), false), "李四");
});

test("a title and a rank read as one line, leaving out what a profile lacks", () => {
  assert.equal(standingLine(create(PlayerProfileSchema, { title: "超轻蝇量级", rankName: "1k" })), "超轻蝇量级 · 1k");
  assert.equal(standingLine(create(PlayerProfileSchema, { title: "农夫" })), "农夫");
  assert.equal(standingLine(undefined), "");
});

test("codes are read case-insensitively with spaces ignored", () => {
  assert.equal(normaliseCode(" k7qx 2m "), "K7QX2M");
  assert.equal(normaliseCode("K7Q\tX2M\n"), "K7QX2M");
  assert.equal(normaliseCode("k7q-x2m"), "K7QX2M");
  assert.ok(isCode("K7QX2M"));
  assert.ok(!isCode("K7QX2"), "five characters");
  assert.ok(!isCode("K7QX2MM"), "seven characters");
  for (const never of ["0", "O", "1", "I", "L"]) assert.ok(!isCode(`K7QX2${never}`), `${never} is never issued`);
});

test("a code that cannot be one is explained before the server is asked", () => {
  assert.equal(codeProblem("k7qx2m"), null);
  assert.match(codeProblem("") ?? "", /6 characters/);
  assert.match(codeProblem("K7QX") ?? "", /has 4/);
  assert.match(codeProblem("K7QXO0") ?? "", /without I, L and O/);
});

test("the share link is the page's address with the code alone, and reads back", () => {
  const link = shareLink("http://localhost:8080/?player=ann#/friends/K7QX2M", "K7QX2M");
  assert.equal(link, "http://localhost:8080/?code=K7QX2M");
  assert.equal(codeFromSearch(new URL(link).search), "K7QX2M");
  assert.equal(codeFromSearch("?player=bo&code=k7qx%202m"), "K7QX2M");
  assert.equal(codeFromSearch("?player=bo"), null);
  assert.equal(codeFromSearch("?code=nope"), null);
});

test("a listed table says how far its game is, in words", () => {
  const playing = create(TableSummarySchema, { inProgress: true, gameNumber: 2, moveNumber: 17, phase: "PHASE_PLAY" });
  assert.equal(stageLine(GameType.GOMOKU, playing), "game 2 · 17 stones · playing");
  const bidding = create(TableSummarySchema, { inProgress: true, gameNumber: 1, moveNumber: 0, phase: "PHASE_BIDDING" });
  assert.equal(stageLine(GameType.DOUDIZHU, bidding), "deal 1 · 0 plays · bidding 叫分");
  const between = create(TableSummarySchema, { inProgress: false, gameNumber: 3, phase: "PHASE_OVER" });
  assert.equal(stageLine(GameType.GOMOKU, between), "game 3 · between games");
});
