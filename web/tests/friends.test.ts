// A friends' table (好友房) in real browsers: one player opens it and reads the code, the
// other joins by the share link, both say ready and play Gomoku, seeing each other's
// Chinese names (昵称) everywhere; when the owner leaves the game table both are back in
// the friends' table's lobby (the friend its owner now), the old owner sits down again
// and the new owner closes it. Refusals show once, in words.

import { test } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { stringsOf } from "../src/i18n/index.js";
import { WEB, clickUntil, grant, launch, open, place, player, setName, shot, until, type Player } from "./harness.js";

// The page is in Chinese (the harness's browsers prefer zh-CN): the friends' tables'
// refusals in the client's Chinese words.
const FRIENDS_WORDS = stringsOf("zh-CN").errors.friends;
const F = stringsOf("zh-CN").friends;

const state = (p: Player) => p.page.getAttribute("#friends-status", "data-state").catch(() => null);
const seatOf = (page: Page, seat: number) => page.textContent(`#friends-seats [data-seat="${seat}"] .name`);

/**
 * The page's Gomoku color once it shows a fresh game (`number` for the message): a color,
 * no result and an empty board, all read from one rendering (no words, any language).
 */
async function colorAt(p: Player, number: number): Promise<string> {
  return until(
    `${p.name} at game ${number}`,
    () =>
      p.page
        .evaluate(() => {
          const color = document.querySelector("#status")?.getAttribute("data-my-color");
          const fresh = !document.querySelector("#result") && !document.querySelector('[data-point][data-stone]:not([data-stone=""])');
          return color && fresh ? color : null;
        })
        .catch(() => null),
    30000,
  );
}

test("friends play Gomoku at a friends' table: opened by one, joined by the share link, both ready, names shown, back in its lobby when the game table closes", async () => {
  const browser = await launch();
  try {
    const [idA, idB] = [player("fr-a"), player("fr-b")];
    await grant(idA, 10_000n);
    const [a, b] = await Promise.all([open(browser, idA), open(browser, idB)]);
    for (const p of [a, b]) p.page.on("dialog", (dialog) => void dialog.accept());

    // Names (昵称): set in the lobby; a refused one shows the server's sentence by the field.
    await setName(a, "张三");
    await setName(b, "李四");
    await a.page.fill("#name-input", " 张三");
    await a.page.click("#save-name");
    const refused = await until("the name refused", async () => (await a.page.textContent("#name-problem"))?.trim());
    assert.doesNotMatch(refused, /^name:|[a-z]+_[a-z]+:/, `a sentence, no field or code: ${refused}`);
    assert.equal(await a.page.textContent("#account-name"), "张三", "a refused name changes nothing");
    await shot(a.page, "friends-name-refused");

    // A paid room's friends' table is off by default: refused once, in words, in the room's card.
    await a.page.click('[data-room="gomoku-renju"] [data-action="friends"]');
    const off = FRIENDS_WORDS.paid_friends_tables_off!;
    await until("the paid room refused", async () => (await a.page.textContent('[data-room="gomoku-renju"] .room-problem').catch(() => null)) === off);
    assert.equal(await a.page.evaluate((w) => document.body.innerText.split(w).length - 1, off), 1, "shown once");
    assert.equal(await a.page.locator("#toasts .toast.error").count(), 0, "not as a toast too");

    // The owner opens a friends' table in the free room and reads its code.
    await a.page.click('[data-room="gomoku-free"] [data-action="friends"]');
    const code = (await until("the code", async () => (await a.page.textContent("#friends-code").catch(() => null))?.trim())) ?? "";
    assert.match(code, /^[2-9A-HJKMNP-Z]{6}$/);
    const link = (await a.page.inputValue("#share-link")) ?? "";
    assert.equal(link, `${new URL(WEB).origin}/?code=${code}`);
    assert.equal(await a.page.getAttribute(`#friends-seats [data-seat="0"]`, "data-player"), idA);
    await shot(a.page, "friends-opened");

    // A code no table has is refused in words, before the friend uses the link.
    await b.page.fill("#join-code", code === "ZZZZZZ" ? "YYYYYY" : "zzz zzz");
    await b.page.click("#join-by-code");
    await until("the unknown code", async () => (await b.page.textContent("#join-problem")) === FRIENDS_WORDS.unknown_code);

    // The friend opens the share link: the friends' table at once, and sits down.
    await b.page.goto(link);
    await until("the shared table", async () => (await b.page.textContent("#friends-code").catch(() => null))?.trim() === code);
    assert.equal(new URL(b.page.url()).search, "", "the code leaves the address");
    await b.page.click("#join");
    for (const p of [a, b]) {
      await until(`${p.name} sees both seated`, async () => (await p.page.getAttribute(`#friends-seats [data-seat="1"]`, "data-player")) === idB);
    }
    assert.match((await seatOf(a.page, 1)) ?? "", /李四/);
    assert.match((await seatOf(b.page, 0)) ?? "", /张三/);
    assert.ok(((await seatOf(b.page, 0)) ?? "").includes(F.owner));

    // Someone else opens the link and signs in first: the same table, full, by name.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const visitor = await context.newPage();
    await visitor.goto(link);
    await visitor.fill("#player-name", player("fr-c"));
    await visitor.press("#player-name", "Enter");
    await until("the table after the sign-in", async () => (await visitor.textContent("#friends-code").catch(() => null))?.trim() === code);
    assert.match((await visitor.textContent("#friends-seats")) ?? "", /张三[\s\S]*李四/);
    assert.equal(await visitor.$("#join"), null, "no seat is free");
    await shot(visitor, "friends-visitor");
    await context.close();

    // Both say ready (准备): the game starts and both go to the Gomoku table.
    await a.page.click("#ready");
    await until("the owner's ready mark", async () => (await b.page.getAttribute(`#friends-seats [data-seat="0"]`, "data-ready")) === "true");
    await shot(b.page, "friends-one-ready");
    await b.page.click("#ready");
    const [colorA, colorB] = await Promise.all([colorAt(a, 1), colorAt(b, 1)]);
    assert.deepEqual([colorA, colorB], ["black", "white"], "the owner's seat 0 plays black first");
    assert.match((await a.page.textContent('.player[data-color="white"] .name')) ?? "", /李四/);
    assert.match((await b.page.textContent('.player[data-color="black"] .name')) ?? "", /张三/);

    // Game 1: the owner (black) wins on the h column.
    for (const [i, point] of ["h8", "h9", "h10", "h11", "h12"].entries()) {
      await place(a, [b], point);
      if (i < 4) await place(b, [a], ["a1", "a3", "a5", "a7"][i]!);
    }
    for (const p of [a, b]) await p.page.waitForSelector("#result");
    await a.page.waitForSelector("#result.win");
    await b.page.waitForSelector("#result.loss");
    assert.match((await b.page.textContent(`#result tr[data-player="${idA}"]`)) ?? "", /张三/);
    assert.match((await a.page.textContent(`#result tr[data-player="${idB}"]`)) ?? "", /李四/);
    assert.match((await b.page.textContent("#log")) ?? "", /张三/, "the log names the player");
    await shot(b.page, "friends-game-1");

    // Game 2 of the pair: colors alternate; the friend (black now) wins on row 8.
    for (const p of [a, b]) await p.page.click("#next-game");
    assert.deepEqual(await Promise.all([colorAt(a, 2), colorAt(b, 2)]), ["white", "black"]);
    for (const [i, point] of ["h8", "i8", "j8", "k8", "l8"].entries()) {
      await place(b, [a], point);
      if (i < 4) await place(a, [b], ["b1", "b3", "b5", "b7"][i]!);
    }
    for (const p of [a, b]) await p.page.waitForSelector("#result");
    await b.page.waitForSelector("#result.win");

    // The pair is played: the owner leaves the game table, which closes it and frees
    // the owner's seat; both are back in the friends' table's lobby, the friend its
    // owner now, not ready.
    await clickUntil(a.page, "#leave", `${a.name} back in the friends' lobby`, async () => (await state(a)) === "LOBBY");
    for (const p of [a, b]) {
      await until(`${p.name} back in the friends' lobby`, async () => (await state(p)) === "LOBBY", 60000);
      assert.equal(new URL(p.page.url()).hash, `#/friends/${code}`);
    }
    await until("the seat freed", async () => (await b.page.getAttribute(`#friends-seats [data-seat="0"]`, "data-player")) === "");
    assert.match((await seatOf(b.page, 1)) ?? "", new RegExp(`李四[\\s\\S]*${F.owner}`));
    assert.equal(await b.page.getAttribute(`#friends-seats [data-seat="1"]`, "data-ready"), "false");
    await shot(b.page, "friends-back-in-lobby");

    // The old owner sits down again by the screen's button; both see it by name.
    await a.page.click("#join");
    for (const p of [a, b]) {
      await until(`${p.name} sees the owner back`, async () => (await p.page.getAttribute(`#friends-seats [data-seat="0"]`, "data-player")) === idA);
    }
    assert.match((await seatOf(b.page, 0)) ?? "", /张三/);

    // The new owner closes the table; its code is not valid any more.
    assert.equal(await a.page.$("#close-table"), null, "only the owner may close");
    await b.page.click("#close-table");
    for (const p of [a, b]) await until(`${p.name} sees it closed`, async () => (await state(p)) === "CLOSED");
    await b.page.click("#back-to-lobby");
    await b.page.waitForSelector("#join-code");
    await b.page.fill("#join-code", code.toLowerCase());
    await b.page.click("#join-by-code");
    await until("the closed code", async () => (await b.page.textContent("#join-problem")) === FRIENDS_WORDS.table_closed);
    assert.deepEqual([...a.problems, ...b.problems], []);
  } finally {
    await browser.close();
  }
});
