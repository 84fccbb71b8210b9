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
  devPlayerId,
  isCode,
  nameProblem,
  normaliseCode,
  rankWords,
  relabel,
  usableAsId,
  playerLine,
  shareLink,
  standingLine,
} from "../src/names.js";
import { stageLine } from "../src/tables.js";
import { setLang, stringsOf } from "../src/i18n/index.js";

// English words here; the Chinese (the page's default) where a test says so.
setLang("en");
relabel();

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
  assert.equal(stageLine(GameType.DOUDIZHU, bidding), "deal 1 · 0 plays · bidding");
  const between = create(TableSummarySchema, { inProgress: false, gameNumber: 3, phase: "PHASE_OVER" });
  assert.equal(stageLine(GameType.GOMOKU, between), "game 3 · between games");
});

test("in Chinese: ranks, a listed table's stage, a code's problem and the bot mark in Chinese words", () => {
  setLang("zh-CN");
  relabel();
  try {
    assert.equal(rankWords("1k"), "1级");
    assert.equal(rankWords("10k"), "10级");
    assert.equal(rankWords("2d"), "业余2段");
    assert.equal(rankWords("9p"), "专业9段");
    assert.equal(rankWords("无级别"), "无级别");
    assert.equal(standingLine(create(PlayerProfileSchema, { title: "超轻蝇量级", rankName: "1k" })), "超轻蝇量级 · 1级");
    const playing = create(TableSummarySchema, { inProgress: true, gameNumber: 2, moveNumber: 17, phase: "PHASE_PLAY" });
    assert.equal(stageLine(GameType.GOMOKU, playing), "第 2 局 · 17 手 · 对局中");
    assert.equal(codeProblem("K7QX"), stringsOf("zh-CN").common.codeLength("K7QX", 4));
    assert.equal(BOT_MARK, "机器人", "the live binding follows the language");
    assert.equal(playerLine("p-81", create(PlayerProfileSchema, { name: "李四" }), true), "李四（你）");
  } finally {
    setLang("en");
    relabel();
  }
  assert.equal(BOT_MARK, "bot");
  assert.equal(rankWords("unranked"), "unranked");
});

test("a display name follows the ledger's rules (docs/rules.md#names): Chinese, spaces inside and emoji yes", () => {
  for (const ok of ["张三", "张 三丰", "Zoë", "👩‍💻 dev", "一二三四五六七八九十一二"]) assert.equal(nameProblem(ok), null, ok);
  assert.match(nameProblem("一二三四五六七八九十一二三") ?? "", /13/);
  assert.ok(nameProblem(" 张三"), "a space at the start");
  assert.ok(nameProblem("张三\u3000"), "an ideographic space at the end");
  assert.ok(nameProblem("张\t三"), "a tab");
  assert.ok(nameProblem("张\u200b三"), "a zero-width space");
  assert.ok(nameProblem("ab\u202ecd"), "a right-to-left override");
  assert.ok(nameProblem(""), "empty");
  assert.ok(nameProblem("😀".repeat(17)), "more than 64 bytes");
  assert.equal(nameProblem("e\u0301"), null, "one character after NFC");
});

test("a development sign-in: an id-like name is the player id; another gets a remembered p- id", () => {
  assert.ok(usableAsId("ann-1"));
  assert.ok(usableAsId("a.b:c@d_e"));
  assert.ok(!usableAsId("张三"));
  assert.ok(!usableAsId("ann b"));
  assert.ok(!usableAsId("bot-7"), "the bots' prefix");
  assert.ok(!usableAsId("x".repeat(65)));
  const kept = new Map<string, string>();
  const store = { getItem: (k: string) => kept.get(k) ?? null, setItem: (k: string, v: string) => void kept.set(k, v) };
  assert.equal(devPlayerId("ann-1", store), "ann-1");
  const id = devPlayerId("张 三", store, () => 0.5);
  assert.match(id, /^p-[0-9a-z]{8}$/);
  assert.equal(devPlayerId("张 三", store, () => 0.1), id, "the same name, the same player");
  assert.notEqual(devPlayerId("李四", store, () => 0.1), id);
  assert.ok(usableAsId(id));
});
