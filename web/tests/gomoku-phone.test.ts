// The Gomoku table as players meet it, in Chinese (the default locale): a full game on a
// phone (390×844, touch) with the board, the status line and the turn's buttons on one
// screen; the same at desktop size with a spectator who arrives mid-game; tap-to-confirm;
// the in-page confirmation before a forbidden point that loses; the result in one
// sentence, the winning five, the move list (棋谱) and the sounds.

import { test } from "node:test";
import assert from "node:assert/strict";
import { WEB, assertInView, grant, launch, open, place, player, seat, shot, stones, until, type Player } from "./harness.js";

/** The board's grid spacing in CSS pixels (the SVG is 624 units wide, 40 per cell). */
async function cellPx(p: Player): Promise<number> {
  const width = await p.page.$eval("svg.board", (el) => el.getBoundingClientRect().width);
  return (width * 40) / 624;
}

/** At `p`'s turn: the board, the status line and the turn's buttons need no scrolling. */
async function turnInView(p: Player): Promise<void> {
  await until(`${p.name}'s turn`, async () => (await p.page.getAttribute("#status", "data-my-turn")) === "true");
  await p.page.evaluate(() => window.scrollTo(0, 0));
  for (const selector of ["svg.board", "#status", ".player", "#actions button"]) await assertInView(p.page, selector);
}

const count = (text: string, part: string) => text.split(part).length - 1;

/** Waits for the passing messages ("Seated with …") to fade, for a clean screenshot. */
async function calm(p: Player): Promise<void> {
  await until("no passing message", async () => (await p.page.$$("#toasts .toast.info")).length === 0, 8000);
}

test("phone (zh): a full game with the board, status and buttons in view at every turn, one result sentence, the winning five, the move list and the sounds", async () => {
  const browser = await launch();
  try {
    const names = [player("gp-a"), player("gp-b")];
    for (const name of names) await grant(name, 10_000n);
    const [a, b] = await Promise.all(names.map((n) => open(browser, n, { size: "phone" })));
    const [black, white] = await seat(a, b, "gomoku-renju");
    await turnInView(black);
    const cell = await cellPx(black);
    assert.ok(cell >= 24, `cells of ${cell} px`);
    const blackMoves = ["h8", "h9", "h10", "h11", "h12"];
    const whiteMoves = ["g7", "a3", "a5", "a7"];
    for (let i = 0; i < blackMoves.length; i++) {
      await turnInView(black);
      await place(black, [white], blackMoves[i]!);
      if (!whiteMoves[i]) break;
      await turnInView(white);
      if (i === 2) {
        await calm(white);
        await shot(white.page, "gomoku-phone-zh");
      }
      await place(white, [black], whiteMoves[i]!);
    }
    for (const p of [black, white]) await p.page.waitForSelector("#result");
    assert.match((await black.page.textContent("#result .headline")) ?? "", /你赢了/);
    assert.match((await white.page.textContent("#result .headline")) ?? "", /你输了/);
    // The reason, once, in one sentence built from the codes.
    const description = (await white.page.textContent("#result .description")) ?? "";
    assert.equal(description, "黑方胜：五子连珠");
    assert.equal(count((await white.page.textContent("#result")) ?? "", "五子连珠"), 1, "the reason is said once");
    // The winning five, exactly.
    for (const p of [black, white]) {
      const winning = await p.page.$$eval('[data-winning="true"]', (els) => els.map((e) => e.getAttribute("data-point")).sort());
      assert.deepEqual(winning, [...blackMoves].sort());
    }
    // The last move marked, the move list as long as the stones on the board.
    assert.equal(await white.page.getAttribute('[data-last="true"]', "data-point"), "h12");
    const onBoard = await stones(white.page);
    const entries = await white.page.$$eval("#moves li", (els) => els.map((e) => e.textContent));
    assert.equal(entries.length, onBoard.length);
    assert.equal(entries[0], "1. 黑 H8");
    assert.equal(entries[1], "2. 白 G7");
    assert.equal(entries.at(-1), "9. 黑 H12");
    // Sounds: stones, the turn, the end.
    const heard = async (p: Player) => ((await p.page.getAttribute(".gomoku-table", "data-sounds")) ?? "").split(" ");
    const blackHeard = await heard(black);
    assert.ok(blackHeard.includes("stone") && blackHeard.includes("turn") && blackHeard.at(-1) === "win", blackHeard.join(" "));
    const whiteHeard = await heard(white);
    assert.ok(whiteHeard.includes("stone") && whiteHeard.includes("turn") && whiteHeard.at(-1) === "lose", whiteHeard.join(" "));
    await white.page.evaluate(() => window.scrollTo(0, 0));
    await assertInView(white.page, "svg.board");
    await assertInView(white.page, "#result .description");
    await assertInView(white.page, "#actions button");
    await shot(white.page, "gomoku-phone-zh-result");
    // Move numbers on the stones, remembered.
    await white.page.click("#toggle-numbers");
    await white.page.waitForSelector('svg.board[data-numbers="on"]');
    assert.equal(await white.page.textContent('[data-point="h12"] .ply'), "9");
    assert.deepEqual([...a.problems, ...b.problems], []);
  } finally {
    await browser.close();
  }
});

test("phone (zh): a first tap shows a ghost stone and places nothing; a second tap or 确定落子 places it", async () => {
  const browser = await launch();
  try {
    const [a, b] = await Promise.all([open(browser, player("tp-a"), { size: "phone" }), open(browser, player("tp-b"), { size: "phone" })]);
    const [black, white] = await seat(a, b, "gomoku-free");
    await until("black's turn", async () => (await black.page.getAttribute("#status", "data-my-turn")) === "true");
    await black.page.tap('[data-point="i9"]');
    await black.page.waitForSelector('[data-point="i9"][data-pending="true"]');
    assert.deepEqual(await stones(black.page), [], "a first tap places nothing");
    assert.match((await black.page.textContent("#confirm-move")) ?? "", /确定落子/);
    await turnInView(black);
    await assertInView(black.page, "#confirm-move");
    await shot(black.page, "gomoku-phone-zh-tap");
    // Another point moves the ghost (black's first stone goes on h8, the center).
    await black.page.tap('[data-point="h8"]');
    await black.page.waitForSelector('[data-point="h8"][data-pending="true"]');
    assert.equal(await black.page.$('[data-point="i9"][data-pending="true"]'), null);
    assert.deepEqual(await stones(black.page), []);
    assert.deepEqual(await stones(white.page), []);
    // A second tap on the same point places it.
    await black.page.tap('[data-point="h8"]');
    for (const p of [black, white]) await p.page.waitForSelector('[data-point="h8"][data-stone="black"]');
    assert.equal(await black.page.$("#confirm-move"), null);
    // White: a tap, then the button.
    await until("white's turn", async () => (await white.page.getAttribute("#status", "data-my-turn")) === "true");
    await white.page.tap('[data-point="i9"]');
    await white.page.waitForSelector("#confirm-move");
    assert.deepEqual(await stones(white.page), ["h8:black"]);
    await white.page.tap("#confirm-move");
    for (const p of [black, white]) await p.page.waitForSelector('[data-point="i9"][data-stone="white"]');
    assert.equal((await stones(black.page)).length, 2);
    assert.deepEqual([...a.problems, ...b.problems], []);
  } finally {
    await browser.close();
  }
});

test("phone (zh): in gomoku-renju a marked forbidden point asks first; cancel changes nothing, confirming loses with the forbidden-move result", async () => {
  const browser = await launch();
  try {
    const names = [player("fb-a"), player("fb-b")];
    for (const name of names) await grant(name, 10_000n);
    const [a, b] = await Promise.all(names.map((n) => open(browser, n, { size: "phone" })));
    const [black, white] = await seat(a, b, "gomoku-renju");
    // Black builds two open twos that cross at g8: a stone there makes a double three.
    const blackMoves = ["h8", "i8", "g9", "g10"];
    const whiteMoves = ["a1", "a3", "a5", "a7"];
    for (let i = 0; i < 4; i++) {
      await place(black, [white], blackMoves[i]!);
      await place(white, [black], whiteMoves[i]!);
    }
    await until("black's turn", async () => (await black.page.getAttribute("#status", "data-my-turn")) === "true");
    assert.equal(await black.page.getAttribute('[data-point="g8"]', "data-forbidden"), "true", "g8 is marked forbidden for black");
    const silverBefore = await black.page.textContent("#header-silver");
    const before = await stones(black.page);
    // A tap on the forbidden point asks at once (no ghost first), naming the rule and what it costs.
    await black.page.tap('[data-point="g8"]');
    const dialog = '#confirm-dialog[data-kind="forbidden"]';
    await black.page.waitForSelector(dialog);
    const words = (await black.page.textContent(dialog)) ?? "";
    assert.match(words, /三三/);
    assert.match(words, /判负/);
    assert.match(words, /G8/);
    await assertInView(black.page, `${dialog} [data-answer]`);
    await shot(black.page, "gomoku-phone-zh-forbidden");
    await black.page.tap(`${dialog} [data-answer="no"]`);
    assert.equal(await black.page.$("#confirm-dialog"), null);
    assert.deepEqual(await stones(black.page), before, "cancel places nothing");
    assert.equal(await black.page.$("#result"), null);
    assert.equal(await black.page.getAttribute("#status", "data-my-turn"), "true", "still black's move");
    assert.equal(await black.page.textContent("#header-silver"), silverBefore, "no silver moved");
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(await stones(white.page), before, "the opponent saw nothing");
    // Confirm: the stone is played and loses.
    await black.page.tap('[data-point="g8"]');
    await black.page.tap(`${dialog} [data-answer="yes"]`);
    for (const p of [black, white]) await p.page.waitForSelector('#result[data-reason="FORBIDDEN_MOVE"]');
    const sentence = (await black.page.textContent("#result .description")) ?? "";
    assert.equal(sentence, "白方胜：黑方禁手（三三）");
    assert.equal(count((await black.page.textContent("#result")) ?? "", "三三"), 1, "the rule is said once");
    assert.match((await black.page.textContent("#result .headline")) ?? "", /你输了/);
    assert.match((await white.page.textContent("#result .headline")) ?? "", /你赢了/);
    // Only the forbidden move's loss was settled: the balance is the grant plus that one delta.
    const row = `#result tr[data-player="${black.name}"]`;
    const balance = await until("the settlement", async () => (await black.page.textContent(`${row} .balance`))?.trim() || null);
    const delta = (await black.page.textContent(`${row} .silver-delta`)) ?? "";
    assert.match(delta, /^−/);
    assert.equal(BigInt(balance.replace(/,/g, "")), 10_000n - BigInt(delta.replace(/[−,]/g, "")));
    await shot(black.page, "gomoku-phone-zh-forbidden-result");
    assert.deepEqual([...a.problems, ...b.problems], []);
  } finally {
    await browser.close();
  }
});

test("desktop (zh): board and side panel side by side in view; a spectator arriving mid-game gets the whole move list", async () => {
  const browser = await launch();
  try {
    const [a, b] = await Promise.all([open(browser, player("gd-a")), open(browser, player("gd-b"))]);
    const [black, white] = await seat(a, b, "gomoku-free");
    const moves: [Player, string][] = [[black, "h8"], [white, "i9"], [black, "h9"], [white, "i10"], [black, "h10"]];
    for (const [who, point] of moves) {
      await turnInView(who);
      await place(who, who === black ? [white] : [black], point);
    }
    await turnInView(white);
    // Side by side: the side panel starts right of the board.
    const boardRight = await white.page.$eval("svg.board", (e) => e.getBoundingClientRect().right);
    const statusLeft = await white.page.$eval("#status", (e) => e.getBoundingClientRect().left);
    assert.ok(statusLeft > boardRight, `status at ${statusLeft}, board ends at ${boardRight}`);
    await calm(white);
    await shot(white.page, "gomoku-desktop-zh");
    // A spectator opens the table now and sees the five moves made before it came.
    const tableId = white.page.url().split("/").pop()!;
    const watcher = await open(browser, player("gd-w"));
    await watcher.page.goto(`${WEB}/?player=${encodeURIComponent(watcher.name)}#/watch/gomoku/${tableId}`);
    await watcher.page.waitForSelector('[data-point="h10"][data-stone="black"]');
    const entries = await watcher.page.$$eval("#moves li", (els) => els.map((e) => e.textContent));
    assert.deepEqual(entries, ["1. 黑 H8", "2. 白 I9", "3. 黑 H9", "4. 白 I10", "5. 黑 H10"]);
    await place(white, [black, watcher], "i11");
    await until("the spectator's move list", async () => (await watcher.page.$$("#moves li")).length === 6);
    assert.equal(await watcher.page.getAttribute('[data-last="true"]', "data-point"), "i11");
    await shot(watcher.page, "gomoku-desktop-zh-spectator");
    assert.deepEqual([...a.problems, ...b.problems, ...watcher.problems], []);
  } finally {
    await browser.close();
  }
});

test("desktop (en): the same page in English — the move list, the resignation asked in the page, the result in one sentence", async () => {
  const browser = await launch();
  try {
    const [a, b] = await Promise.all([open(browser, player("ge-a"), { locale: "en-US" }), open(browser, player("ge-b"), { locale: "en-US" })]);
    const [black, white] = await seat(a, b, "gomoku-free");
    await place(black, [white], "h8");
    await place(white, [black], "j10");
    assert.match((await black.page.textContent("#status")) ?? "", /^Your move \(black\)/);
    assert.deepEqual(await white.page.$$eval("#moves li", (els) => els.map((e) => e.textContent)), ["1. Black H8", "2. White J10"]);
    await black.page.click("#resign");
    assert.match((await black.page.textContent("#confirm-dialog")) ?? "", /Resign this game\?/);
    await black.page.click('#confirm-dialog [data-answer="yes"]');
    for (const p of [black, white]) await p.page.waitForSelector("#result");
    assert.equal(await white.page.textContent("#result .description"), "White wins: black resigned");
    assert.equal(await white.page.textContent("#result .headline"), "You win!");
    assert.equal(await black.page.textContent("#result .headline"), "You lose");
    assert.deepEqual([...a.problems, ...b.problems], []);
  } finally {
    await browser.close();
  }
});
