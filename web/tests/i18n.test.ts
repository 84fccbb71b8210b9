// The page's languages (web/src/i18n): which one a browser gets, and that both say
// everything: the same keys, the same kinds of values, no empty string. No server, no browser.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LANGS, pickLang, stringsOf } from "../src/i18n/index.js";

test("a Chinese browser, an unknown one or none gets 简体中文; an English one English; a stored choice wins", () => {
  assert.equal(pickLang(["zh-CN", "en-US"], null), "zh-CN");
  assert.equal(pickLang(["zh-TW"], null), "zh-CN");
  assert.equal(pickLang(["zh"], null), "zh-CN");
  assert.equal(pickLang(["en-US", "zh-CN"], null), "en");
  assert.equal(pickLang(["EN-gb"], null), "en");
  assert.equal(pickLang(["fr-FR", "de"], null), "zh-CN", "unknown languages: Chinese");
  assert.equal(pickLang(["fr-FR", "en"], null), "en", "the first known language");
  assert.equal(pickLang([], null), "zh-CN");
  assert.equal(pickLang(["zh-CN"], "en"), "en", "the player's choice");
  assert.equal(pickLang(["en-US"], "zh-CN"), "zh-CN");
  assert.equal(pickLang(["en-US"], "klingon"), "en", "a stored value that is no language is ignored");
  assert.deepEqual(LANGS.map((l) => l.label), ["简体中文", "English"]);
});

/** Every leaf of `a` and `b` side by side: the same keys, the same kind, no empty string. */
function compare(a: unknown, b: unknown, path: string, problems: string[]): number {
  if (typeof a !== typeof b) {
    problems.push(`${path}: ${typeof a} in English, ${typeof b} in Chinese`);
    return 0;
  }
  if (typeof a === "string") {
    if (a.trim() === "") problems.push(`${path}: empty in English`);
    if ((b as string).trim() === "") problems.push(`${path}: empty in Chinese`);
    return 1;
  }
  if (typeof a === "function") {
    if (a.length !== (b as (...args: unknown[]) => unknown).length) problems.push(`${path}: ${a.length} arguments in English, ${(b as () => void).length} in Chinese`);
    return 1;
  }
  if (a && typeof a === "object") {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b as object).sort();
    for (const k of ka.filter((k) => !kb.includes(k))) problems.push(`${path}.${k}: missing in Chinese`);
    for (const k of kb.filter((k) => !ka.includes(k))) problems.push(`${path}.${k}: missing in English`);
    let leaves = 0;
    for (const k of ka.filter((k) => kb.includes(k))) leaves += compare((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`, problems);
    return leaves;
  }
  problems.push(`${path}: a ${typeof a}`);
  return 0;
}

test("English and Chinese have the same keys (records included) and no empty string", () => {
  const problems: string[] = [];
  const leaves = compare(stringsOf("en"), stringsOf("zh-CN"), "strings", problems);
  assert.deepEqual(problems, []);
  assert.ok(leaves > 100, `${leaves} strings compared`);
});

test("a sentence with values says them in both languages, and the Chinese has no English word of the page's own", () => {
  const en = stringsOf("en");
  const zh = stringsOf("zh-CN");
  assert.equal(zh.lobby.needSilver("1,000", "200"), "需要 1,000 银子，你有 200");
  assert.equal(en.lobby.needSilver("1,000", "200"), "Needs 1,000 silver; you have 200.");
  assert.equal(zh.common.rank(1, "k"), "1级");
  assert.equal(zh.common.rank(2, "d"), "业余2段");
  assert.equal(zh.common.rank(3, "p"), "专业3段");
  // Chinese strings: Latin only for ids, codes, numbers' units and the brand.
  const allowed = /^(gamehub|ID|gt|ddz|A|Z|I|L|O|k|d|p|W|L|D)$/;
  const words: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === "string") words.push(...(v.replace(/K7QX2M/g, "").match(/[A-Za-z]+/g) ?? []).filter((w) => !allowed.test(w)));
    else if (v && typeof v === "object") Object.values(v).forEach(walk);
  };
  for (const section of ["common", "lobby", "friends", "tournaments", "errors"] as const) walk(zh[section]);
  assert.deepEqual(words, []);
});
