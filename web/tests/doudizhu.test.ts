// Dou Dizhu in a real browser: three players bid and play a deal to its end with Hint
// and Play, and no page ever holds another seat's cards.

import { test } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { clickUntil, grant, launch, lobbySilver, open, player, shot, until, type Player } from "./harness.js";

const hand = (page: Page) => page.$$eval("#hand [data-card]", (els) => els.map((e) => e.getAttribute("data-card")!));

/**
 * No page holds a card of another seat's current hand, anywhere in its HTML (as a
 * data-card attribute, in text, anywhere) but the kitty, which is shown to all. Not vacuous: the same scan finds every card
 * of the page's own hand, and the other hands are not empty.
 */
async function assertNoOtherHands(players: Player[], spectators: Page[] = []): Promise<number> {
  const pages = [...players.map((p) => p.page), ...spectators];
  const eventIds = () => Promise.all(pages.map((p) => p.getAttribute(".doudizhu-table", "data-event-id")));
  for (let attempt = 0; ; attempt++) {
    // Every page shows the table as of the same event, so a hand and a play agree.
    const ids = await eventIds();
    if (new Set(ids).size !== 1 && attempt < 100) {
      await pages[0]!.waitForTimeout(50);
      continue;
    }
    // The kitty (底牌) is shown to all once the landlord takes it: public, not secret.
    const kitty = await players[0]!.page.$$eval("#kitty [data-card]", (els) => els.map((e) => e.getAttribute("data-card")!));
    const dealt = await Promise.all(players.map((p) => hand(p.page)));
    if (dealt.some((cards) => cards.length === 0)) return 0; // a seat played out: the deal is over
    const hands = dealt.map((cards) => cards.filter((c) => !kitty.includes(c)));
    const htmls = await Promise.all(pages.map((p) => p.content()));
    if (JSON.stringify(await eventIds()) !== JSON.stringify(ids) && attempt < 100) continue; // a play landed meanwhile
    const found = (html: string, card: string) => new RegExp(`\\b${card}\\b`).test(html);
    let checked = 0;
    players.forEach((p, i) => {
      for (const card of dealt[i]!) assert.ok(found(htmls[i]!, card), `the scan finds ${p.name}'s own ${card}`);
      const others = hands.filter((_, j) => j !== i).flat();
      for (const card of others) {
        const at = htmls[i]!.search(new RegExp(`\\b${card}\\b`));
        assert.ok(at < 0, `${p.name}'s page holds ${card} of another seat: …${htmls[i]!.slice(Math.max(0, at - 300), at + 100)}…`);
        checked++;
      }
    });
    spectators.forEach((_, k) => {
      const html = htmls[players.length + k]!;
      for (const card of hands.flat()) assert.ok(!found(html, card), `the spectator's page holds ${card}`);
    });
    return checked;
  }
}

const myTurn = async (p: Player) => (await p.page.getAttribute("#status", "data-my-turn").catch(() => null)) === "true";

test("three players play a Dou Dizhu deal to its end with Hint and Play, never seeing another seat's cards", async () => {
  const browser = await launch();
  try {
    const names = [player("dd-a"), player("dd-b"), player("dd-c")];
    for (const name of names) await grant(name, 100_000n);
    const t0 = Date.now();
    const mark = (what: string) => process.env.TIMING && console.error(`${what} at ${Date.now() - t0} ms`);
    const players = await Promise.all(names.map((n) => open(browser, n)));
    mark("lobbies");
    for (const p of players) await p.page.click('[data-room="doudizhu-classic"] [data-action="play"]');
    for (const p of players) await p.page.waitForSelector("#hand .card");
    mark("seated");
    const tableId = await players[0]!.page.getAttribute(".doudizhu-table", "data-table");
    const spectatorContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const spectator = await spectatorContext.newPage();
    await spectator.goto(`${players[0]!.page.url().split("?")[0]!.split("#")[0]}?player=${player("dd-watch")}#/watch/doudizhu/${tableId}`);
    await spectator.waitForSelector(".felt .seat");
    assert.equal(await spectator.$("#hand"), null, "a spectator has no hand");
    assert.equal((await spectator.$$(".seat[data-seat]")).length, 3, "a spectator sees all three seats");

    mark("spectator");
    let checked = await assertNoOtherHands(players, [spectator]);
    mark("first scan");
    await shot(players[0]!.page, "doudizhu-bidding");
    // Bidding: whoever bids first takes the landlord with 3.
    const bidder = await until("a bidder", async () => {
      for (const p of players) if (await myTurn(p)) return p;
      return null;
    });
    await bidder.page.click('[data-bid="3"]');
    await until("the kitty shown to all", async () => {
      for (const p of players) if ((await p.page.$$("#kitty [data-card]")).length !== 3) return false;
      return true;
    });
    assert.equal((await hand(bidder.page)).length, 20, "the landlord took the kitty");

    let plays = 0;
    let lastShot = 0;
    while (!(await players[0]!.page.$("#result"))) {
      const actor = await until("a seat to act, or the end", async () => {
        if (await players[0]!.page.$("#result")) return "over" as const;
        for (const p of players) if (await myTurn(p)) return p;
        return null;
      });
      if (actor === "over") break;
      const before = await actor.page.getAttribute("#status", "data-my-turn");
      assert.equal(before, "true");
      if (plays === 0) await shot(actor.page, "doudizhu-desktop-zh");
      await actor.page.click("#hint");
      const selected = await until("the hint: cards selected, or nothing beats", async () => {
        const cards = (await actor.page.$$("#hand .card.selected")).length;
        return cards > 0 ? cards : (await actor.page.$("#notice")) ? -1 : null;
      });
      if (selected > 0) {
        await actor.page.click("#play");
        plays++;
      } else {
        await actor.page.click("#pass");
      }
      await until("the turn to move on", async () => !(await myTurn(actor)) || (await actor.page.$("#result")) !== null);
      if (plays % 6 === 3 && plays !== lastShot) {
        lastShot = plays;
        checked += await assertNoOtherHands(players, [spectator]);
        if (plays === 9) {
          await shot(players[0]!.page, "doudizhu-playing");
          await shot(spectator, "doudizhu-spectator");
        }
      }
      assert.ok(plays < 120, "the deal ends");
    }
    for (const p of players) await p.page.waitForSelector("#result");
    mark("deal over");
    // 摊牌: every page, the spectator's too, shows every seat's remaining cards beside the result.
    const left = await Promise.all([0, 1, 2].map((seat) => spectator.getAttribute(`.seat[data-seat="${seat}"]`, "data-cards-left")));
    assert.ok(left.includes("0"), "a seat played out");
    for (const page of [...players.map((p) => p.page), spectator]) {
      await page.waitForSelector("#showdown");
      for (const seat of [0, 1, 2]) {
        assert.equal((await page.$$(`#showdown [data-seat="${seat}"] [data-card]`)).length, Number(left[seat]), `seat ${seat}'s cards shown`);
      }
    }
    assert.ok(checked > 20, `the secrecy scan checked ${checked} cards`);
    // The settlement: every seat's silver moved, shown on each page and then in its lobby.
    for (const p of players) {
      await until("the settlement", async () => (await p.page.$$('#result .silver-delta[data-settled="false"]')).length === 0);
    }
    mark("settled");
    await shot(players[0]!.page, "doudizhu-result");
    for (const p of players) {
      const delta = (await p.page.textContent(`#result tr[data-player="${p.name}"] .silver-delta`))!.replace(/[,+]/g, "").replace("−", "-");
      await clickUntil(p.page, "#leave", `${p.name} back in the lobby`, async () => (await p.page.$("#silver")) !== null);
      await until("the new balance in the lobby", async () => (await lobbySilver(p.page)) === 100_000n + BigInt(delta));
      assert.notEqual(BigInt(delta), 0n);
    }
    await spectatorContext.close();
    assert.deepEqual(players.flatMap((p) => p.problems), []);
  } finally {
    await browser.close();
  }
});
