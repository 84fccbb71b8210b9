// Gomoku in a real browser: two players queue, get seated and play by clicking on the
// board; a page reloaded mid-game resumes; a forbidden point is refused in words.

import { test } from "node:test";
import assert from "node:assert/strict";
import { WEB, clickUntil, grant, launch, lobbySilver, open, place, player, seat, shot, stones, until, type Player } from "./harness.js";

/** The silver a settled result shows for this page's player. */
async function settledBalance(p: Player): Promise<bigint> {
  const text = await until("the settlement", async () => {
    const cell = await p.page.$(`#result tr[data-player="${p.name}"] .balance`);
    const value = cell ? (await cell.textContent())?.trim() : "";
    return value ? value : null;
  });
  return BigInt(text.replace(/,/g, ""));
}

test("two players queue for gomoku-renju, play to five by clicking, and both lobbies show the result and the new silver", async () => {
  const browser = await launch();
  try {
    const names = [player("gr-a"), player("gr-b")];
    for (const name of names) await grant(name, 10_000n);
    const [a, b] = await Promise.all(names.map((n) => open(browser, n)));
    assert.equal(await lobbySilver(a.page), 10_000n);
    await shot(a.page, "lobby");
    const [black, white] = await seat(a, b, "gomoku-renju");
    const blackMoves = ["h8", "h9", "h10", "h11", "h12"];
    const whiteMoves = ["a1", "a3", "a5", "a7"];
    for (let i = 0; i < blackMoves.length; i++) {
      await place(black, [white], blackMoves[i]!);
      if (i === 3) await shot(black.page, "gomoku-renju-playing");
      if (whiteMoves[i]) await place(white, [black], whiteMoves[i]!);
    }
    for (const p of [black, white]) await p.page.waitForSelector("#result");
    assert.match((await black.page.textContent("#result .headline")) ?? "", /你赢了/);
    assert.match((await white.page.textContent("#result .headline")) ?? "", /你输了/);
    assert.equal(await black.page.textContent("#result .description"), "黑方胜：五子连珠", "one sentence from the result's codes");
    const [blackAfter, whiteAfter] = [await settledBalance(black), await settledBalance(white)];
    assert.ok(blackAfter > 10_000n && whiteAfter < 10_000n, `balances ${blackAfter} / ${whiteAfter}`);
    await shot(black.page, "gomoku-result-winner");
    await shot(white.page, "gomoku-result-loser");
    // Back in the lobby: the new silver and the last game.
    for (const [p, balance] of [[black, blackAfter], [white, whiteAfter]] as const) {
      await clickUntil(p.page, "#leave", `${p.name} back in the lobby`, async () => (await p.page.$("#silver")) !== null);
      await until("the new balance in the lobby", async () => (await lobbySilver(p.page)) === balance);
      assert.match((await p.page.textContent("#last-result")) ?? "", /银子/);
    }
    await shot(black.page, "gomoku-lobby-after");
    assert.deepEqual([...a.problems, ...b.problems], []);
  } finally {
    await browser.close();
  }
});

test("a page reloaded mid-game resumes the same table from its last event and finishes the game", async () => {
  const browser = await launch();
  try {
    const [a, b] = await Promise.all([open(browser, player("rl-a")), open(browser, player("rl-b"))]);
    const [black, white] = await seat(a, b, "gomoku-free");
    const tableUrl = black.page.url();
    await place(black, [white], "h8");
    // An event for the log: white offers a draw, then plays on.
    await white.page.click("#offer-draw");
    await until("the offer in black's log", async () => /提议和棋/.test((await black.page.textContent("#log")) ?? ""));
    await place(white, [black], "a1");
    await place(black, [white], "h9");
    const before = await stones(black.page);
    const savedId = await black.page.evaluate(() => {
      const key = Object.keys(sessionStorage).find((k) => k.startsWith("gamehub.watch."));
      return key ? (JSON.parse(sessionStorage.getItem(key)!) as { after: string }).after : "0";
    });
    assert.ok(BigInt(savedId) > 0n, "the page keeps the last event id it applied");
    // White moves while black's page reloads: the resumed stream must bring that move.
    await Promise.all([black.page.reload(), place(white, [], "a3")]);
    await black.page.waitForSelector('[data-point="a3"][data-stone="white"]');
    assert.equal(black.page.url(), tableUrl, "the same table");
    const after = await stones(black.page);
    for (const s of before) assert.ok(after.includes(s), `${s} is still on the board`);
    const moves = await black.page.$$eval("#moves li", (els) => els.map((e) => e.textContent));
    assert.deepEqual(moves, ["1. 黑 H8", "2. 白 A1", "3. 黑 H9", "4. 白 A3"], "the move list has the moves from before the reload and the one made during it");
    assert.match((await black.page.textContent("#log")) ?? "", /提议和棋/, "the log from before the reload is kept");
    await shot(black.page, "gomoku-after-reload");
    await place(black, [white], "h10");
    await place(white, [black], "a5");
    await place(black, [white], "h11");
    await place(white, [black], "a7");
    await place(black, [white], "h12");
    await black.page.waitForSelector("#result");
    assert.match((await black.page.textContent("#result .headline")) ?? "", /你赢了/);
    assert.deepEqual([...a.problems, ...b.problems], []);
  } finally {
    await browser.close();
  }
});

test("a forbidden point in gomoku-renju-refuse shows the server's reason and changes nothing", async () => {
  const browser = await launch();
  try {
    const names = [player("rf-a"), player("rf-b")];
    for (const name of names) await grant(name, 10_000n);
    const [a, b] = await Promise.all(names.map((n) => open(browser, n)));
    const [black, white] = await seat(a, b, "gomoku-renju-refuse");
    // Black builds two open twos that cross at g8: a stone there makes a double three.
    const blackMoves = ["h8", "i8", "g9", "g10"];
    const whiteMoves = ["a1", "a3", "a5", "a7"];
    for (let i = 0; i < 4; i++) {
      await place(black, [white], blackMoves[i]!);
      await place(white, [black], whiteMoves[i]!);
    }
    await until("black's turn", async () => (await black.page.getAttribute("#status", "data-my-turn")) === "true");
    assert.equal(await black.page.getAttribute('[data-point="g8"]', "data-forbidden"), "true", "g8 is marked forbidden for black");
    const before = await stones(black.page);
    await black.page.click('[data-point="g8"]');
    assert.equal(await black.page.$("#confirm-dialog"), null, "a refuse room asks nothing: the server refuses");
    const notice = await until("the refusal", async () => (await black.page.$("#notice")) && black.page.textContent("#notice"));
    assert.match(notice ?? "", /forbidden|禁手/i);
    assert.match(notice ?? "", /double three|三三/i);
    assert.equal(await black.page.$$eval("#notice, #toasts .toast.error", (els) => els.length), 1, "the refusal is shown once");
    assert.doesNotMatch(notice ?? "", /Error|at \w+ \(|\.ts:|\.js:/, "a player's sentence, no stack trace");
    await shot(black.page, "gomoku-refuse-forbidden");
    assert.deepEqual(await stones(black.page), before, "nothing changed on the board");
    assert.deepEqual(await stones(white.page), before);
    assert.equal(await black.page.getAttribute("#status", "data-my-turn"), "true", "still black's move");
    assert.deepEqual([...a.problems, ...b.problems].filter((p) => !p.includes("FailedPrecondition") && !p.includes("failed_precondition")), []);
  } finally {
    await browser.close();
  }
});

test("the swap room: swap after move 3, two fifth-move proposals and the choice, a draw declined, a resignation", async () => {
  const browser = await launch();
  try {
    const names = [player("sw-a"), player("sw-b")];
    for (const name of names) await grant(name, 10_000n);
    const [a, b] = await Promise.all(names.map((n) => open(browser, n)));
    const [first, second] = await seat(a, b, "gomoku-renju-swap");
    const phase = (p: Player) => p.page.getAttribute("#status", "data-phase");
    await place(first, [second], "h8");
    await place(second, [first], "i9");
    await place(first, [second], "g9");
    // White (second) decides: swap, and now plays black.
    await until("the swap decision", async () => (await phase(second)) === "SWAP_DECISION");
    await second.page.click("#swap");
    await until("colors swapped", async () => (await second.page.getAttribute("#status", "data-my-color")) === "black");
    await until("the other player now white", async () => (await first.page.getAttribute("#status", "data-my-color")) === "white");
    await place(first, [second], "k11");
    // Black (second, after the swap) proposes two fifth moves; white keeps one.
    await until("the proposals", async () => (await phase(second)) === "PROPOSE_FIFTH");
    await second.page.click('[data-point="c3"]');
    await second.page.click('[data-point="m13"]');
    await second.page.click("#propose");
    await until("the choice", async () => (await phase(first)) === "CHOOSE_FIFTH");
    await shot(first.page, "gomoku-swap-choose-fifth");
    await first.page.click('[data-point="m13"]');
    await first.page.waitForSelector('[data-point="m13"][data-stone="black"]');
    assert.equal(await first.page.getAttribute('[data-point="c3"]', "data-stone"), "", "the dropped proposal is gone");
    // White offers a draw; black declines; then white resigns.
    await until("white to move", async () => (await first.page.getAttribute("#status", "data-my-turn")) === "true");
    await first.page.click("#offer-draw");
    await second.page.waitForSelector("#accept-draw");
    await second.page.click("#decline-draw");
    await until("the offer answered", async () => !(await second.page.$("#accept-draw")));
    // Resigning asks in the page first: cancel changes nothing, then resign for real.
    await first.page.click("#resign");
    await first.page.click('#confirm-dialog[data-kind="resign"] [data-answer="no"]');
    assert.equal(await first.page.$("#confirm-dialog"), null);
    assert.equal(await first.page.$("#result"), null, "cancel resigns nothing");
    await first.page.click("#resign");
    await first.page.click('#confirm-dialog[data-kind="resign"] [data-answer="yes"]');
    for (const p of [first, second]) await p.page.waitForSelector("#result");
    assert.match((await second.page.textContent("#result .headline")) ?? "", /你赢了/);
    assert.match((await first.page.textContent("#result .description")) ?? "", /^(黑方|白方)胜：(白方|黑方)认输$/);
    assert.equal(await first.page.getAttribute("#result", "data-reason"), "RESIGNATION");
    await shot(second.page, "gomoku-swap-result");
    assert.deepEqual([...a.problems, ...b.problems], []);
  } finally {
    await browser.close();
  }
});

test("a player who opens the page afresh (another device, a restarted app) is taken back to the table and finishes the game", async () => {
  const browser = await launch();
  try {
    const [a, b] = await Promise.all([open(browser, player("rj-a")), open(browser, player("rj-b"))]);
    const [black, white] = await seat(a, b, "gomoku-free");
    const tableUrl = black.page.url();
    await place(black, [white], "h8");
    await place(white, [black], "a1");
    // Black's device dies: its whole browser context (and sessionStorage) is gone.
    await black.context.close();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
    // Signed in again at the lobby's address, the page finds the table by itself.
    await page.goto(`${WEB}/?player=${encodeURIComponent(black.name)}#/`);
    await page.waitForSelector('#status[data-my-color="black"]');
    assert.equal(page.url().split("#")[1], tableUrl.split("#")[1], "the same table");
    assert.match((await page.textContent("#toasts")) ?? "", /Gomoku|五子棋/);
    for (const s of ["h8:black", "a1:white"]) assert.ok((await stones(page)).includes(s), `${s} is on the board`);
    await shot(page, "gomoku-rejoined");
    const again: Player = { name: black.name, context, page, problems };
    for (const [i, point] of ["h9", "h10", "h11", "h12"].entries()) {
      await place(again, [white], point);
      if (i < 3) await place(white, [again], ["a3", "a5", "a7"][i]!);
    }
    await page.waitForSelector("#result.win");
    assert.match((await page.textContent("#result .headline")) ?? "", /You win|你赢了/);
    assert.deepEqual([...problems, ...white.problems], []);
  } finally {
    await browser.close();
  }
});
