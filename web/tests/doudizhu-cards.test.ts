// The Dou Dizhu page's card words, no server and no browser: the hand high to low as
// Chinese players hold it (大王 小王 2 A K … 3), jokers as 小王/大王 and 10 as "10".

import { test } from "node:test";
import assert from "node:assert/strict";
import { cardWords, highToLow } from "../src/doudizhu.js";
import { setLang } from "../src/i18n/index.js";

setLang("zh-CN");

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
