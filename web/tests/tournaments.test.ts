// Tournaments (比赛) in real browsers, in Chinese (the default locale). An operator creates
// a free Gomoku Swiss for two players with one round in "gomoku-free" (CreateTournament
// with the operator token, from this test); two players (one at desktop size, one on a
// phone) find it from the lobby, register from its page, and are taken to their table by
// themselves when it starts (it starts when full), one from the tournament's page, one
// from the lobby. They play the game out at the ordinary
// Gomoku screen, which shows the way back to the tournament and, after the game, comes
// back there; both pages then show the final standings with the winner first. The phone
// checks that the tournament's page fits 390 px. A second test: a paid tournament refused
// for want of silver (the client's words for the code, beside the buttons), then the fee
// held on registering and given back on unregistering.

import { test } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { createClient, type Client } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { GameType } from "../src/gen/gamehub/common/v1/common_pb.js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { Format, TournamentService, type TournamentSettingsSchema } from "../src/gen/gamehub/tournament/v1/tournament_pb.js";
import { stringsOf } from "../src/i18n/index.js";
import { WEB, assertInView, clickUntil, grant, launch, open, place, player, setName, shot, until, type Player } from "./harness.js";

const zh = stringsOf("zh-CN");

/** The tournament service as the platform's operator (GAMEHUB_OPERATOR_TOKEN, as `grant` uses it). */
async function asOperator(): Promise<Client<typeof TournamentService>> {
  const token = process.env.GAMEHUB_OPERATOR_TOKEN;
  if (!token) throw new Error("GAMEHUB_OPERATOR_TOKEN is not set (gamehub token ci-operator --role operator)");
  const config = (await (await fetch(`${WEB}/config.json`)).json()) as { services: { tournaments?: string } };
  if (!config.services.tournaments) throw new Error("config.json names no tournament service (services.tournaments)");
  return createClient(
    TournamentService,
    createGrpcWebTransport({
      baseUrl: config.services.tournaments,
      interceptors: [(next) => (req) => (req.header.set("authorization", `Bearer ${token}`), next(req))],
    }),
  );
}

/** Creates a tournament as the operator; answers its id. */
async function createTournament(settings: MessageInitShape<typeof TournamentSettingsSchema>): Promise<string> {
  const operator = await asOperator();
  const { tournament } = await operator.createTournament({ requestId: crypto.randomUUID(), settings });
  assert.ok(tournament?.tournamentId.startsWith("tn-"), "a tournament id");
  return tournament!.tournamentId;
}

/** From the lobby to the tournament's page: the lobby's entry, then its card in the list. */
async function openTournament(p: Player, id: string): Promise<void> {
  await p.page.click("#open-tournaments");
  await p.page.waitForSelector("#tournaments");
  const card = `#tournaments-live [data-tournament="${id}"]`;
  await until(`${p.name} sees the tournament listed`, async () => (await p.page.$(card)) !== null);
  await p.page.click(card);
  await until(`${p.name} on the tournament's page`, async () => (await p.page.getAttribute(".tn-page", "data-tournament").catch(() => null)) === id);
  await p.page.waitForSelector("#tn-status");
}

const tnState = (page: Page) => page.getAttribute("#tn-status", "data-state").catch(() => null);
const hash = (page: Page) => new URL(page.url()).hash;

test("a free Gomoku Swiss: two players register from the page, are taken to their table when it is full, play it out, and both see the final standings, winner first; the page fits a phone", async () => {
  const suffix = player("t").slice(2);
  const name = `五子棋测试赛 ${suffix}`;
  const id = await createTournament({
    name,
    gameType: GameType.GOMOKU,
    roomId: "gomoku-free",
    format: Format.SWISS,
    entryFeeSilver: 0n,
    minPlayers: 2,
    maxPlayers: 2,
    startsAtUnixMs: 0n,
    rounds: 1,
  });
  const browser = await launch();
  try {
    const [idA, idB] = [player("tn-a"), player("tn-b")];
    const [a, b] = await Promise.all([open(browser, idA), open(browser, idB, { size: "phone" })]);
    for (const p of [a, b]) p.page.on("dialog", (dialog) => void dialog.accept());
    await setName(a, "张三");
    await setName(b, "李四");

    // From the lobby to the tournament: listed with its game, room, format, fee, places
    // and "as soon as it is full".
    for (const p of [a, b]) await openTournament(p, id);
    assert.equal(await tnState(a.page), "REGISTERING");
    const listed = (await b.page.textContent("#tn-name")) ?? "";
    assert.equal(listed, name);
    const status = (await a.page.textContent("#tn-status")) ?? "";
    assert.equal(status, zh.tournaments.statusOpenFull(0, 2));
    assert.equal(await a.page.textContent('[data-setting="format"]'), zh.tournaments.swiss);
    assert.equal(await a.page.textContent('[data-setting="fee"]'), zh.tournaments.free);
    assert.equal(await a.page.textContent('[data-setting="start"]'), zh.tournaments.whenFull);
    assert.equal(await a.page.textContent('#prizes tr[data-place="1"] .share'), "100%");

    // The phone: the status, the Register button and the rest fit 390 px, no sideways scroll.
    await b.page.evaluate(() => window.scrollTo(0, 0));
    for (const selector of ["#tn-status", "#register", "#tn-name"]) await assertInView(b.page, selector);
    await shot(b.page, "tournament-phone-open");

    // 张三 registers: both pages see it (WatchTournament), by name.
    await clickUntil(a.page, "#register", "张三 registered", async () => (await a.page.$("#unregister")) !== null, 30000);
    for (const p of [a, b]) {
      await until(`${p.name} sees 张三 registered`, async () => (await p.page.$(`#players [data-player="${idA}"]`)) !== null);
    }
    // By name (the ledger's profiles, asked once the page knows the player).
    await until("张三 by name", async () => /张三/.test((await b.page.textContent(`#players [data-player="${idA}"]`)) ?? ""));
    assert.equal(await b.page.textContent("#tn-status"), zh.tournaments.statusOpenFull(1, 2));
    await shot(a.page, "tournament-registered");

    // 张三 waits in the lobby: the tournament is followed from there too.
    await a.page.click("#back-to-lobby");
    await a.page.waitForSelector("#rooms-playable");

    // 李四 registers: the tournament is full and starts; each page is taken to its table
    // (李四's from the tournament's page, 张三's from the lobby).
    await clickUntil(b.page, "#register", "李四 registered", async () => (await b.page.$("#register")) === null, 30000);
    const tables = await Promise.all(
      [a, b].map((p) =>
        until(`${p.name} at the tournament's table`, async () => /^#\/gomoku\/(.+)$/.exec(hash(p.page))?.[1] ?? null, 60000),
      ),
    );
    assert.equal(tables[0], tables[1], "both at the same table");
    const colorOf = (p: Player) =>
      until(`${p.name}'s color`, async () => (await p.page.getAttribute("#status", "data-my-color").catch(() => null)) || null, 30000);
    const [colorA] = await Promise.all([colorOf(a), colorOf(b)]);
    const [black, white] = colorA === "black" ? [a, b] : [b, a];
    const blackId = black === a ? idA : idB;
    const whiteId = black === a ? idB : idA;
    for (const p of [a, b]) {
      await p.page.waitForSelector(`#tournament-bar[data-tournament="${id}"]`);
      assert.match((await p.page.textContent("#tournament-bar")) ?? "", new RegExp(`${zh.tournaments.badge}[\\s\\S]*${name}`));
    }

    // The game, played out through the board: black makes five on the h column. On the
    // phone, the tournament's bar leaves the board, the status and the buttons in view.
    const blackMoves = ["h8", "h9", "h10", "h11", "h12"];
    const whiteMoves = ["a1", "a3", "a5", "a7"];
    for (let i = 0; i < blackMoves.length; i++) {
      await place(black, [white], blackMoves[i]!);
      if (i === 1 && b === black) await phoneTurnInView(b);
      if (!whiteMoves[i]) break;
      if (i === 1 && b === white) await phoneTurnInView(b);
      await place(white, [black], whiteMoves[i]!);
    }
    for (const p of [black, white]) await p.page.waitForSelector("#result");
    await black.page.waitForSelector("#result.win");
    await white.page.waitForSelector("#result.loss");
    // No next game at a tournament's table: the way back instead, and a countdown.
    for (const p of [black, white]) {
      await p.page.waitForSelector("#back-to-tournament");
      assert.equal(await p.page.$("#next-game"), null, "no next game");
    }
    await until("the countdown", async () => (await white.page.$("#back-in")) !== null);
    await shot(b.page, "tournament-game-over");

    // The loser goes back at once; the winner is brought back after the countdown.
    await clickUntil(white.page, "#back-to-tournament", "the loser back at the tournament", async () => hash(white.page) === `#/tournament/${id}`, 20000);
    await until("the winner back at the tournament", async () => hash(black.page) === `#/tournament/${id}`, 30000);

    // Both see the final standings, the winner first, and the round's result.
    for (const p of [a, b]) {
      await until(`${p.name} sees it finished`, async () => (await tnState(p.page)) === "FINISHED", 60000);
      await p.page.waitForSelector("#standings");
      assert.equal(await p.page.getAttribute('#standings tr[data-place="1"]', "data-player"), blackId, "the winner first");
      assert.equal(await p.page.getAttribute('#standings tr[data-place="2"]', "data-player"), whiteId);
      assert.equal(await p.page.textContent('#standings tr[data-place="1"] .score'), "1");
      assert.equal(await p.page.textContent('#standings tr[data-place="2"] .score'), "0");
      assert.equal(await p.page.textContent('#standings tr[data-place="1"] .wdl'), zh.tournaments.wdl(1, 0, 0));
      assert.equal(await p.page.getAttribute('#rounds [data-round="1"] [data-board="1"]', "data-outcome"), "BLACK_WINS");
      assert.equal(await p.page.textContent("#tn-status"), zh.tournaments.statusFinished);
      assert.equal(await p.page.$("#to-table"), null, "no table to go to");
    }
    const winnerName = black === a ? "张三" : "李四";
    for (const p of [a, b]) {
      await until(`${p.name} sees the winner by name`, async () => ((await p.page.textContent('#standings tr[data-place="1"] .name')) ?? "").includes(winnerName));
    }

    // The phone: the finished tournament's page fits too.
    await b.page.evaluate(() => window.scrollTo(0, 0));
    await assertInView(b.page, "#tn-status");
    await b.page.locator("#standings").scrollIntoViewIfNeeded();
    await assertInView(b.page, "#standings");
    await shot(b.page, "tournament-phone-finished");
    await shot(a.page, "tournament-finished");

    // Listed among the finished ones.
    await a.page.click("#back-to-tournaments");
    await a.page.waitForSelector(`#tournaments-ended [data-tournament="${id}"]`);
    assert.deepEqual([...a.problems, ...b.problems], []);
  } finally {
    await browser.close();
  }
});

/** On the phone at its turn: the board, the tournament's bar, the status and the buttons need no scrolling. */
async function phoneTurnInView(p: Player): Promise<void> {
  await until(`${p.name}'s turn`, async () => (await p.page.getAttribute("#status", "data-my-turn")) === "true");
  await p.page.evaluate(() => window.scrollTo(0, 0));
  for (const selector of ["#tournament-bar", "svg.board", "#status", "#actions button"]) await assertInView(p.page, selector);
  await shot(p.page, "tournament-phone-game");
}

test("a paid tournament: a player without the fee is refused in words; with it, registering holds the fee and unregistering gives it back", async () => {
  const id = await createTournament({
    name: `Paid Swiss ${player("p").slice(2)}`,
    gameType: GameType.GOMOKU,
    roomId: "gomoku-free",
    entryFeeSilver: 1000n,
    minPlayers: 2,
    maxPlayers: 8,
    // Far off, so it stays open while this test runs (then it is cancelled for too few).
    startsAtUnixMs: BigInt(Date.now() + 3 * 3600_000),
    prizeSharesBp: [7000, 3000],
  });
  const browser = await launch();
  try {
    const idC = player("tn-c");
    const c = await open(browser, idC, { size: "phone" });
    c.page.on("dialog", (dialog) => void dialog.accept());
    await openTournament(c, id);
    assert.equal(await c.page.textContent('#prizes tr[data-place="1"] .share'), "70%");
    assert.equal(await c.page.textContent('#prizes tr[data-place="2"] .share'), "30%");

    // No silver: refused, once, beside the buttons, in the client's words.
    await c.page.click("#register");
    const refused = await until("the refusal", async () => (await c.page.textContent("#notice").catch(() => null))?.trim());
    assert.equal(refused, zh.errors.tournament.insufficient_balance);
    assert.equal(await c.page.evaluate((w) => document.body.innerText.split(w).length - 1, refused), 1, "said once");
    // The refused entry may show for a moment (the registration is stored, then the
    // ledger refuses the fee and it is taken out): what counts is that it goes.
    await until("the refused entry gone", async () => (await c.page.$(`#players [data-player="${idC}"]`)) === null);
    await assertInView(c.page, "#notice");
    await shot(c.page, "tournament-phone-refused");

    // With silver: the fee is held (the header's silver drops by it), then given back.
    await grant(idC, 5000n);
    const silver = () => c.page.getAttribute("#header-silver", "data-silver");
    await c.page.reload();
    await c.page.waitForSelector("#register");
    await until("5,000 silver in the header", async () => (await silver()) === "5000");
    await clickUntil(c.page, "#register", "registered", async () => (await c.page.$("#unregister")) !== null, 30000);
    assert.equal(await c.page.$("#notice"), null, "the refusal is gone");
    await until("the fee held", async () => (await silver()) === "4000");
    assert.equal(await c.page.textContent("#prizes-box .sub"), zh.tournaments.poolLine("1,000"));
    await clickUntil(c.page, "#unregister", "unregistered", async () => (await c.page.$("#register")) !== null, 30000);
    await until("the fee given back", async () => (await silver()) === "5000");
    assert.deepEqual(c.problems, []);
  } finally {
    await browser.close();
  }
});
