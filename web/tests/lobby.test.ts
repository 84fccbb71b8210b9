// The shell and the lobby in a real browser, at desktop (1280×800) and phone (390×844)
// sizes, Chinese by default: nothing overflows sideways, the header stays on one line,
// playable rooms come first and a locked room says why and how silver is had, the queue
// shows in the pressed room's card and in a bar kept in view, a refusal shows once, a
// page's toasts go with it, the language follows the browser and the menu (and stays
// over a reload), a Chinese name with a space signs in, what a rating means is one click
// away, and the CJK fonts: the UI subset renders the page, the 1 MB common subset is
// fetched only for a character the UI subset lacks.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { SIZES, WEB, assertInView, grant, launch, open, player, shot, until, type Size } from "./harness.js";
import { stringsOf } from "../src/i18n/index.js";

const zh = stringsOf("zh-CN");
const en = stringsOf("en");
const UI_CHARACTERS = new Set(readFileSync(new URL("../src/fonts/ui-characters.txt", import.meta.url), "utf8"));

/** The header is one row: every item's box is one line high and they share the row. */
async function assertHeaderOneLine(page: Page): Promise<void> {
  const boxes = await page.$$eval("header.top .logo, #player, #header-silver, #menu-button", (els) =>
    els.map((e) => {
      const r = e.getBoundingClientRect();
      const line = parseFloat(getComputedStyle(e).lineHeight) || parseFloat(getComputedStyle(e).fontSize) * 1.3;
      return { id: e.id || e.className, top: r.top, bottom: r.bottom, height: r.height, line, right: r.right };
    }),
  );
  assert.equal(boxes.length, 4, `logo, name, silver and menu in the header: ${JSON.stringify(boxes)}`);
  const width = await page.evaluate(() => window.innerWidth);
  for (const b of boxes) {
    assert.ok(b.height < b.line * 1.9 + 16, `${b.id} is one line: ${b.height}px high, line ${b.line}px`);
    assert.ok(b.right <= width, `${b.id} inside the screen`);
  }
  const middle = (b: { top: number; bottom: number }) => (b.top + b.bottom) / 2;
  for (const b of boxes) assert.ok(Math.abs(middle(b) - middle(boxes[0]!)) < 12, `${b.id} on the header's row`);
  const header = await page.$eval("header.top", (e) => e.getBoundingClientRect().height);
  assert.ok(header <= 64, `the header is ${header}px high`);
}

async function assertNoOverflow(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page overflows sideways by ${overflow}px`);
}

/** The fonts the page fetched, by file name. */
async function fontsFetched(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    performance
      .getEntriesByType("resource")
      .map((e) => e.name)
      .filter((n) => n.includes("/fonts/"))
      .map((n) => n.slice(n.lastIndexOf("/") + 1)),
  );
}

/** The characters of the page's text that the UI font subset lacks. */
async function outsideUiSubset(page: Page): Promise<string[]> {
  const text = await page.evaluate(() => document.body.innerText + document.title);
  return [...new Set([...text])].filter((c) => c.codePointAt(0)! > 0x7f && !/\s/u.test(c) && !UI_CHARACTERS.has(c));
}

async function fontsSettled(page: Page): Promise<void> {
  await page.evaluate(async () => {
    await document.fonts.ready;
    await new Promise((r) => setTimeout(r, 300));
    await document.fonts.ready;
  });
}

for (const size of ["desktop", "phone"] as Size[]) {
  test(`the lobby at ${size} size: one-line header, no overflow, playable rooms first, a locked room says why, the queue in view, a refusal once, toasts cleared`, async () => {
    const browser = await launch();
    try {
      // A new player: no silver, so the free rooms are the playable ones.
      const poor = await open(browser, player(`lb-${size[0]}`), { size });
      const page = poor.page;
      await page.waitForSelector("#rooms-playable [data-room]");
      assert.equal(await page.getAttribute("html", "lang"), "zh-CN");
      await assertHeaderOneLine(page);
      await assertNoOverflow(page);
      const playable = await page.$$eval("#rooms-playable [data-room]", (els) => els.map((e) => e.getAttribute("data-room")));
      assert.deepEqual(playable.sort(), ["doudizhu-free", "doudizhu-laizi-free", "doudizhu-rob-free", "gomoku-free"], "a player without silver can play the free rooms");
      if (size === "desktop") await assertInView(page, '#rooms-playable [data-room] [data-action="play"]');
      else await assertInView(page, '#rooms-playable [data-room="gomoku-free"] [data-action="play"]');
      // A locked room says why, in numbers, and how silver is had; its buttons are off.
      const lock = await page.textContent('[data-room="gomoku-renju"] .lock');
      assert.ok(lock?.includes(zh.lobby.needSilver("1,000", "0")), `the reason: ${lock}`);
      assert.ok(lock?.includes(zh.lobby.howToGetSilver), "how silver is had");
      assert.equal(await page.getAttribute('[data-room="gomoku-renju"]', "data-playable"), "false");
      assert.equal(await page.isDisabled('[data-room="gomoku-renju"] [data-action="play"]'), true);
      await shot(page, `lobby-${size}-zh`);

      // What "3000 · 1级" means: one click from the account panel.
      await page.click("#rating-help-open");
      await page.waitForSelector('[data-help="rank"]', { state: "visible" });
      assert.match((await page.textContent('[data-help="rank"]')) ?? "", /3000/);
      assert.equal(await page.locator("#titles li").count(), 18, "the 18 titles");
      await page.locator("#rating-help").scrollIntoViewIfNeeded();
      await shot(page, `lobby-${size}-help`);
      await assertNoOverflow(page);

      // A player with silver: every room is playable; Play on a room further down shows
      // the waiting state in that card and in the bar, both in view.
      const richId = player(`lq-${size[0]}`);
      await grant(richId, 60_000n);
      const rich = await open(browser, richId, { size });
      const room = "gomoku-renju-opening";
      const card = `[data-room="${room}"]`;
      await rich.page.waitForSelector(`#rooms-playable ${card}`);
      assert.equal(await rich.page.$("#rooms-locked"), null, "nothing locked");
      await rich.page.locator(`${card} [data-action="play"]`).scrollIntoViewIfNeeded();
      if (size === "phone") assert.ok(await rich.page.evaluate(() => window.scrollY > 300), "the room is further down");
      await rich.page.click(`${card} [data-action="play"]`);
      await rich.page.waitForSelector('#ticket[data-state="WAITING"]');
      await rich.page.waitForSelector(`${card} .room-wait`);
      await assertInView(rich.page, "#ticket");
      await assertInView(rich.page, `${card} .room-wait`);
      await shot(rich.page, `lobby-${size}-queue`);
      await rich.page.click(`${card} .room-wait [data-action="cancel"]`);
      await rich.page.waitForSelector('#ticket[data-state="CANCELLED"]');
      await rich.page.click("#ticket-ok");
      await until("the bar gone", async () => (await rich.page.$("#ticket")) === null);

      // A refusal shows once, in the card of the room that caused it, never as a toast too.
      await rich.page.click('[data-room="gomoku-renju"] [data-action="friends"]');
      const words = zh.errors.friends.paid_friends_tables_off!;
      await until("the refusal", async () => (await rich.page.textContent('[data-room="gomoku-renju"] .room-problem').catch(() => null)) === words);
      const times = await rich.page.evaluate((w) => document.body.innerText.split(w).length - 1, words);
      assert.equal(times, 1, "shown once");
      assert.equal(await rich.page.locator("#toasts .toast").count(), 0, "no toast beside it");

      // A page's toasts go with it: the name's toast is gone after the table list and back.
      await rich.page.fill("#name-input", "钱七");
      await rich.page.click("#save-name");
      await rich.page.waitForSelector("#toasts .toast");
      await rich.page.click('[data-room="gomoku-free"] [data-action="tables"]');
      await rich.page.waitForSelector("#tables-title");
      await assertNoOverflow(rich.page);
      await shot(rich.page, `tables-${size}-zh`);
      await rich.page.click("#back-to-lobby");
      await rich.page.waitForSelector("#rooms-playable");

      // A friends' table's page: no overflow either, the header on one line; Leave comes back.
      await rich.page.click('[data-room="gomoku-free"] [data-action="friends"]');
      await rich.page.waitForSelector("#friends-code");
      await assertNoOverflow(rich.page);
      await assertHeaderOneLine(rich.page);
      await shot(rich.page, `friends-${size}-zh`);
      await rich.page.click("#leave-friends");
      await rich.page.waitForSelector("#rooms-playable");

      // The menu: language, sound, motion, sign out, inside the screen.
      await rich.page.click("#menu-button");
      await assertInView(rich.page, "#menu");
      await shot(rich.page, `menu-${size}-zh`);
      await rich.page.click("#menu-button");
      assert.equal(await rich.page.isVisible("#menu"), false, "the menu closes again");
      assert.equal(await rich.page.locator("#toasts .toast").count(), 0, "no toast left in the lobby");
      await assertHeaderOneLine(rich.page);
      assert.equal(await rich.page.textContent("#player"), "钱七");
      assert.deepEqual([...poor.problems, ...rich.problems], []);
    } finally {
      await browser.close();
    }
  });
}

test("the language: a Chinese browser gets Chinese, an English one English; the menu switches and a reload keeps it", async () => {
  const browser = await launch();
  try {
    const english = await open(browser, player("lang-en"), { locale: "en-US", size: "phone" });
    await english.page.waitForSelector("#rooms-playable");
    assert.equal(await english.page.getAttribute("html", "lang"), "en");
    assert.equal(await english.page.textContent("#rooms h3"), en.lobby.roomsPlayable);
    assert.equal(await english.page.getAttribute("#menu-button", "aria-label"), en.common.menu);
    await assertHeaderOneLine(english.page);
    await assertNoOverflow(english.page);
    await shot(english.page, "lobby-phone-en");

    const chinese = await open(browser, player("lang-zh"));
    await chinese.page.waitForSelector("#rooms-playable");
    assert.equal(await chinese.page.textContent("#rooms h3"), zh.lobby.roomsPlayable);
    await chinese.page.click("#menu-button");
    await chinese.page.click('[data-lang="en"]');
    await until("English", async () => (await chinese.page.textContent("#rooms h3")) === en.lobby.roomsPlayable);
    assert.equal(await chinese.page.getAttribute("html", "lang"), "en");
    // settings: sound and motion, remembered too
    await chinese.page.click("#menu-button");
    await chinese.page.click("#pref-motion");
    assert.equal(await chinese.page.getAttribute("body", "data-motion"), "off");
    await chinese.page.reload();
    await chinese.page.waitForSelector("#rooms-playable");
    assert.equal(await chinese.page.textContent("#rooms h3"), en.lobby.roomsPlayable, "English after a reload");
    assert.equal(await chinese.page.getAttribute("body", "data-motion"), "off", "motion off after a reload");
    await chinese.page.click("#menu-button");
    await chinese.page.click('[data-lang="zh-CN"]');
    await until("Chinese again", async () => (await chinese.page.textContent("#rooms h3")) === zh.lobby.roomsPlayable);
    assert.deepEqual([...english.problems, ...chinese.problems], []);
  } finally {
    await browser.close();
  }
});

/** A fresh browser at the sign-in box (no token yet). */
async function signInPage(browser: Browser, size: Size) {
  const context = await browser.newContext({ ...SIZES[size], locale: "zh-CN" });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (err) => problems.push(err.message));
  await page.goto(`${WEB}/`);
  await page.waitForSelector("#player-name");
  return { context, page, problems };
}

test("sign-in with a Chinese name with a space: accepted, shown in the header; a bad name is refused beside the field without a field's name; the CJK fonts load as needed", async () => {
  const browser = await launch();
  try {
    const { context, page, problems } = await signInPage(browser, "phone");
    // The sign-in page's text is all in the UI subset: the common subset is not fetched.
    await fontsSettled(page);
    assert.deepEqual(await outsideUiSubset(page), [], "the sign-in page's characters are in the UI subset");
    assert.ok(await page.evaluate(() => document.fonts.check('16px "gamehub Sans SC"', "五子棋斗地主")), "the UI font renders Chinese");
    let fetched = await fontsFetched(page);
    assert.ok(fetched.includes("gamehub-sc-ui.woff2"), `the UI subset loads: ${fetched}`);
    assert.ok(!fetched.includes("gamehub-sc-common.woff2"), `the common subset is not fetched: ${fetched}`);
    await assertNoOverflow(page);
    await shot(page, "sign-in-phone-zh");

    // A name that is not a name: refused in words, beside the field, no toast, no field name.
    await page.fill("#player-name", "一二三四五六七八九十一二三");
    await page.click("#sign-in");
    await until("the refusal", async () => (await page.textContent("#sign-in-problem")) === zh.common.nameTooLong(13));
    assert.equal(await page.locator("#toasts .toast").count(), 0);

    // A Chinese name with a space (and a character the UI subset lacks: 啊).
    const name = "啊 哈哈";
    await page.fill("#player-name", name);
    await page.click("#sign-in");
    await page.waitForSelector("#rooms-playable");
    await until("the name in the header", async () => (await page.textContent("#player")) === name);
    await until("the name in the account", async () => (await page.textContent("#account-name")) === name);
    const id = (await page.textContent("#account-id")) ?? "";
    assert.match(id, /^p-[0-9a-z]{8}$/, "an ASCII player id for the development token");
    assert.equal(await page.locator("#toasts .toast").count(), 0, "no toast carried into the lobby");
    await assertHeaderOneLine(page);
    await assertNoOverflow(page);

    // The lobby: the common subset is fetched if and only if its text needs it (啊 does).
    await fontsSettled(page);
    const outside = await outsideUiSubset(page);
    assert.ok(outside.includes("啊"), `the name's 啊 is outside the UI subset: ${outside}`);
    fetched = await fontsFetched(page);
    assert.ok(fetched.includes("gamehub-sc-common.woff2"), `the common subset is fetched for 啊: ${fetched}`);
    assert.ok(await page.evaluate(() => document.fonts.check('16px "gamehub Sans SC"', "五子棋斗地主")));
    await shot(page, "lobby-phone-chinese-name");
    await context.close();

    // The same name again on this browser: the same player.
    const again = await signInPage(browser, "desktop");
    await again.page.evaluate(([n, i]) => localStorage.setItem("gamehub.devIds", JSON.stringify({ [n!]: i })), [name, id]);
    await again.page.fill("#player-name", name);
    await again.page.click("#sign-in");
    await until("the same player", async () => (await again.page.textContent("#account-id").catch(() => null)) === id);
    await again.context.close();
    assert.deepEqual([...problems, ...again.problems], []);
  } finally {
    await browser.close();
  }
});
