// The Dou Dizhu page's card words, no server and no browser: the hand high to low as
// Chinese players hold it (大王 小王 2 A K … 3), jokers as 小王/大王 and 10 as "10"; in a
// 癞子 (laizi) deal the wild cards, what they stood for in a play, a bomb by its class, and
// the readings of the selected cards among Hint's plays.

import { test } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { cardWords, comboWords, highToLow, isWild, playWords, readingsOf, sameCards, wildStandsFor } from "../src/cards.js";
import { BombClass, CombinationSchema, HintSchema, Kind, type Hint } from "../src/gen/gamehub/doudizhu/v1/doudizhu_pb.js";
import { setLang } from "../src/i18n/index.js";

setLang("zh-CN");

const combination = (kind: Kind, rank: string, bomb = BombClass.UNSPECIFIED, length = 1) => create(CombinationSchema, { kind, rank, length, bomb });
const hint = (cards: string[], meant: string, kind: Kind, rank: string, bomb = BombClass.UNSPECIFIED): Hint =>
  create(HintSchema, { ranks: cards.map((c) => c.slice(1)).sort().join(""), cards, meant, combination: combination(kind, rank, bomb) });

test("a hand runs high to low: 大王 小王 2 A K Q J 10 … 3", () => {
  const dealt = ["S3", "HT", "BJ", "D2", "SA", "RJ", "CK", "H3", "SJ", "DQ", "S9", "HA"];
  assert.deepEqual(highToLow(dealt), ["RJ", "BJ", "D2", "SA", "HA", "CK", "DQ", "SJ", "HT", "S9", "S3", "H3"]);
  assert.deepEqual(dealt[0], "S3", "the hand given is left as it is");
});

test("cards read as players read them: 小王, 大王, ♥10", () => {
  assert.equal(cardWords("BJ"), "小王");
  assert.equal(cardWords("RJ"), "大王");
  assert.equal(cardWords("HT"), "♥10");
  assert.equal(cardWords("SA"), "♠A");
});

test("every card of the wild rank is wild, in every suit; jokers and other ranks never; no wild rank, no wild card", () => {
  assert.ok(["S7", "H7", "C7", "D7"].every((c) => isWild(c, "7")));
  assert.ok(!isWild("S8", "7"));
  assert.ok(!isWild("BJ", "7") && !isWild("RJ", "7"));
  assert.ok(isWild("HT", "T"), "10 as rank text T");
  assert.ok(!isWild("S7", ""), "a classic or rob table has no wild rank");
});

test("what the wild cards stood for: the meant ranks the other cards do not account for", () => {
  assert.deepEqual(wildStandsFor(["S5", "H5", "C5", "D7"], "5555", "7"), ["5"], "555 and a wild 7 as a soft bomb");
  assert.deepEqual(wildStandsFor(["S5", "H5", "C5", "D7"], "5557", "7"), ["7"], "the same cards as a triple with a single");
  assert.deepEqual(wildStandsFor(["S3", "H4", "C7", "D7", "S6"], "34567", "7"), ["5", "7"], "two wilds in a straight, low to high");
  assert.deepEqual(wildStandsFor(["S5", "H5", "C5", "D6"], "5556", "7"), [], "no wild card");
  assert.deepEqual(wildStandsFor(["S5", "H5", "C5", "D7"], "", "7"), [], "no reading said");
});

test("a bomb is named by its class in a laizi deal, plainly elsewhere; other kinds by their names", () => {
  assert.equal(comboWords(combination(Kind.BOMB, "5", BombClass.SOFT)), "软炸弹");
  assert.equal(comboWords(combination(Kind.BOMB, "5", BombClass.HARD)), "硬炸弹");
  assert.equal(comboWords(combination(Kind.BOMB, "7", BombClass.WILD)), "癞子炸弹");
  assert.equal(comboWords(combination(Kind.BOMB, "5")), "炸弹");
  assert.equal(comboWords(combination(Kind.TRIPLE_WITH_SINGLE, "5")), "三带一");
  assert.equal(comboWords(undefined), "不出");
});

test("a laizi play in words: its kind, the ranks it stands for, and what the wild cards stood for", () => {
  const cards = ["S5", "H5", "C5", "D7"];
  assert.equal(playWords(cards, combination(Kind.BOMB, "5", BombClass.SOFT), "5555", "7"), "软炸弹 5 5 5 5（癞子当 5）");
  assert.equal(playWords(cards, combination(Kind.TRIPLE_WITH_SINGLE, "5"), "5557", "7"), "三带一 5 5 5 7（癞子当 7）");
  assert.equal(playWords(["ST", "HJ", "CQ", "DK", "SA"], combination(Kind.STRAIGHT, "T"), "", ""), "顺子 10 J Q K A", "a classic play: its cards' ranks");
  setLang("en");
  try {
    assert.equal(playWords(cards, combination(Kind.BOMB, "5", BombClass.SOFT), "5555", "7"), "soft bomb 5 5 5 5 (wild as 5)");
  } finally {
    setLang("zh-CN");
  }
});

test("the readings of the selected cards: Hint's plays with the same ranks, whatever the suits, one per reading, in Hint's order", () => {
  const soft = hint(["S5", "H5", "C5", "S7"], "5555", Kind.BOMB, "5", BombClass.SOFT);
  const triple = hint(["S5", "H5", "C5", "S7"], "5557", Kind.TRIPLE_WITH_SINGLE, "5");
  const tripleAgain = hint(["S5", "H5", "C5", "S7"], "5553", Kind.TRIPLE_WITH_SINGLE, "5");
  const other = hint(["S6", "H6", "C6", "S7"], "6666", Kind.BOMB, "6", BombClass.SOFT);
  const plays = [triple, other, tripleAgain, soft];
  const selected = ["D5", "C5", "H5", "D7"];
  assert.deepEqual(readingsOf(selected, plays), [triple, soft], "a kicker's stand-in does not make another reading");
  assert.deepEqual(readingsOf(["S6", "H6", "C6", "D7"], plays), [other], "one reading: nothing to choose");
  assert.deepEqual(readingsOf(["S8", "H8"], plays), [], "cards Hint does not offer (they do not beat): none");
});

test("the same cards, whatever their order", () => {
  assert.ok(sameCards(["S5", "H7"], ["H7", "S5"]));
  assert.ok(!sameCards(["S5", "H7"], ["S5", "D7"]));
  assert.ok(!sameCards(["S5"], ["S5", "S5"]));
});
