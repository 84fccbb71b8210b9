// Dou Dizhu's rule sets in real browsers. A 叫地主/抢地主 ("rob") deal with three players at
// a friends' table: each decision shows its own two buttons (叫地主/不叫, 抢地主/不抢,
// 加倍/不加倍, 明牌/不明牌) and only those; calls, robs and doubles show at the seats; once
// the landlord shows its hand (明牌) the farmers and a spectator see its remaining cards
// face up at its seat, and nobody sees the other farmer's; the multiplier counts the rob
// and the show; the result says them. A 癞子 ("laizi") deal on a phone with two bots: the
// wild rank is shown and marked on every card of it in the hand; cards Hint reads more
// than one way open the reading chooser, and the play goes out as the reading chosen.

import { test } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { DoudizhuService, type Hint } from "../src/gen/gamehub/doudizhu/v1/doudizhu_pb.js";
import { readingsOf } from "../src/cards.js";
import { WEB, assertInView, launch, open, player, playWithBots, shot, until, type Player } from "./harness.js";

const attr = (page: Page, selector: string, name: string) => page.getAttribute(selector, name).catch(() => null);
const myTurn = async (page: Page) => (await attr(page, "#status", "data-my-turn")) === "true";
const decisionOf = (page: Page) => attr(page, "#status", "data-decision");
const hand = (page: Page) => page.$$eval("#hand [data-card]", (els) => els.map((e) => e.getAttribute("data-card")!));
const mySeat = async (page: Page) => Number(await attr(page, "#me .seat", "data-seat"));

/** Each yes/no decision's buttons (ids) and their words in Chinese. */
const DECISIONS: Record<string, { yes: string; no: string; words: [string, string] }> = {
  CALL: { yes: "#call", no: "#no-call", words: ["叫地主", "不叫"] },
  ROB: { yes: "#rob", no: "#no-rob", words: ["抢地主", "不抢"] },
  DOUBLE: { yes: "#double", no: "#no-double", words: ["加倍", "不加倍"] },
  SHOW: { yes: "#show", no: "#no-show", words: ["明牌", "不明牌"] },
};

/** `assertInView`, again when the page drew itself anew while it measured. */
async function inView(page: Page, selector: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await assertInView(page, selector);
    } catch (err) {
      if (attempt >= 5 || !String(err).includes(" 0×0")) throw err;
      await page.waitForTimeout(50);
    }
  }
}

/** The bar shows exactly the buttons of `decision` (and auto-play): no bid, no other decision's. */
async function assertButtons(page: Page, decision: string): Promise<void> {
  const ids = await page.$$eval("#actions button", (els) => els.map((e) => e.id || `bid-${e.getAttribute("data-bid")}`));
  if (decision === "PLAY") {
    assert.ok(ids.includes("hint") && ids.includes("play"), `Hint and Play: ${ids}`);
    assert.ok(ids.every((id) => ["hint", "play", "pass", "auto"].includes(id)), `only the play's buttons: ${ids}`);
    return;
  }
  const want = DECISIONS[decision]!;
  assert.deepEqual(ids, [want.yes.slice(1), want.no.slice(1), "auto"], `the buttons of ${decision}`);
  assert.equal((await page.textContent(want.yes))?.trim(), want.words[0]);
  assert.equal((await page.textContent(want.no))?.trim(), want.words[1]);
}

/** The DoudizhuService as the player of `page` (its token), for what a test must know beforehand. */
async function dealerAs(page: Page) {
  const token = await page.evaluate(() => sessionStorage.getItem("gamehub.token"));
  const config = (await (await fetch(`${WEB}/config.json`)).json()) as { services: { doudizhu: string } };
  return createClient(
    DoudizhuService,
    createGrpcWebTransport({
      baseUrl: config.services.doudizhu,
      interceptors: [(next) => (req) => (req.header.set("authorization", `Bearer ${token}`), next(req))],
    }),
  );
}

/**
 * Presses Hint and waits for its answer: the number of cards it selected, or -1 when it
 * selected none and said why. Read in one evaluation: the answer draws both at once.
 */
async function pressHint(page: Page): Promise<number> {
  await page.click("#hint");
  return until("the hint", () =>
    page.evaluate(() => {
      const n = document.querySelectorAll("#hand .card.selected").length;
      return n > 0 ? n : document.querySelector("#notice") ? -1 : null;
    }),
  );
}

/** Waits until `p` has acted: no longer its turn, or another decision, or the deal's end. */
async function acted(p: Player, decision: string): Promise<void> {
  await until(
    `${p.name}'s ${decision} taken`,
    async () => !(await myTurn(p.page)) || (await decisionOf(p.page)) !== decision || (await p.page.$("#result")) !== null,
  );
}

test("three players at a friends' table play a 叫地主/抢地主 deal: each decision's buttons, calls, robs and doubles shown, the landlord's 明牌 at its seat for farmers and a spectator, to the deal's end", async () => {
  const browser = await launch();
  try {
    const ids = [player("rob-a"), player("rob-b"), player("rob-c")];
    const a = await open(browser, ids[0]!);
    const b = await open(browser, ids[1]!);
    const c = await open(browser, ids[2]!, { size: "phone" });
    const players = [a, b, c];
    for (const p of players) p.page.on("dialog", (dialog) => void dialog.accept());

    // A friends' table of the free 叫地主 room: opened by one, joined by the others' link.
    await a.page.click('[data-room="doudizhu-rob-free"] [data-action="friends"]');
    const code = await until("the code", async () => (await a.page.textContent("#friends-code").catch(() => null))?.trim());
    const link = await a.page.inputValue("#share-link");
    for (const p of [b, c]) {
      await p.page.goto(link);
      await until("the shared table", async () => (await p.page.textContent("#friends-code").catch(() => null))?.trim() === code);
      await p.page.click("#join");
    }
    await until("three seated", async () => (await attr(a.page, '#friends-seats [data-seat="2"]', "data-player")) === ids[2]);
    for (const p of players) await p.page.click("#ready");
    for (const p of players) await p.page.waitForSelector("#hand [data-card]", { timeout: 30000 });
    const tableId = (await attr(a.page, ".doudizhu-table", "data-table"))!;
    for (const p of players) {
      assert.equal(await attr(p.page, "#rule-set", "data-rule-set"), "rob");
      assert.equal((await p.page.textContent("#rule-set"))?.trim(), "叫地主抢地主", "the rule set in the header");
    }
    const watcher = await open(browser, player("rob-w"));
    await watcher.page.goto(`${WEB}/?player=${player("rob-w")}#/watch/doudizhu/${tableId}`);
    await watcher.page.waitForSelector(".felt .seat");

    // The landlord is chosen, then the doubling and the show: whoever is asked first calls,
    // the first asked to rob robs (× 2), nobody robs again; the farmers double, the
    // landlord does not; the landlord shows its hand (× 2).
    let robbed = false;
    const seen: string[] = [];
    let landlord: Player | undefined;
    for (;;) {
      const step = await until(
        "a seat to decide",
        async () => {
          for (const p of players) if (await myTurn(p.page)) return { p, decision: (await decisionOf(p.page)) ?? "" };
          return null;
        },
        30000,
      );
      const { p, decision } = step;
      if (decision === "PLAY") break;
      assert.ok(decision in DECISIONS, `a decision of the rob rule set: ${decision}`);
      if (!seen.includes(decision)) {
        await assertButtons(p.page, decision);
        await inView(p.page, "#actions button");
        await shot(p.page, `doudizhu-rob-${decision.toLowerCase()}${p === c ? "-phone" : ""}`);
      }
      seen.push(decision);
      const seat = await mySeat(p.page);
      const isLandlord = (await attr(p.page, "#me .seat", "data-role")) === "landlord";
      const yes =
        decision === "CALL" ? true : decision === "ROB" ? !robbed : decision === "DOUBLE" ? !isLandlord : true;
      await p.page.click(yes ? DECISIONS[decision]!.yes : DECISIONS[decision]!.no);
      await acted(p, decision);
      if (decision === "ROB" && yes) robbed = true;
      if (decision === "CALL" || decision === "ROB") {
        // The call or rob shows at the seat for everyone while the landlord is chosen.
        const kind = decision === "CALL" ? "CALL" : yes ? "ROB" : "NO_ROB";
        const phase = await attr(watcher.page, "#status", "data-phase");
        if (phase === "BIDDING") {
          await until(`seat ${seat}'s ${kind} at its seat`, async () => (await watcher.page.$(`.seat[data-seat="${seat}"] [data-call="${kind}"]`)) !== null || (await attr(watcher.page, "#status", "data-phase")) !== "BIDDING");
        }
      }
      if (decision === "DOUBLE" && yes) {
        for (const other of [...players.map((x) => x.page), watcher.page]) {
          await until(`seat ${seat}'s 加倍 mark`, async () => (await attr(other, `.seat[data-seat="${seat}"]`, "data-doubled")) === "true");
        }
      }
      if (decision === "SHOW") landlord = p;
      assert.ok(seen.length < 12, "the landlord is chosen");
    }
    assert.deepEqual([...new Set(seen)], ["CALL", "ROB", "DOUBLE", "SHOW"], "each decision of the rob rule set, in order");
    assert.ok(landlord, "the landlord decided to show");
    await until("the log to tell the doubles and the show", async () => /加倍[\s\S]*明牌/.test((await watcher.page.textContent("#log")) ?? ""));
    // × 2 for the rob, × 2 for the show.
    await until("×4", async () => (await watcher.page.textContent("#multiplier .value"))?.trim() === "×4");

    // 明牌: the farmers and the spectator see the landlord's cards face up at its seat.
    const farmers = players.filter((p) => p !== landlord);
    const landlordSeat = await mySeat(landlord!.page);
    const shownOn = async (page: Page) => (await page.$$eval("#shown-hand [data-card]", (els) => els.map((e) => e.getAttribute("data-card")!))).sort();
    const landlordHand = (await hand(landlord!.page)).sort();
    assert.equal(landlordHand.length, 20);
    for (const page of [...farmers.map((f) => f.page), watcher.page]) {
      await until("the shown hand", async () => (await shownOn(page)).length === 20);
      assert.deepEqual(await shownOn(page), landlordHand, "the landlord's cards, face up");
      assert.equal(await attr(page, "#shown-hand", "data-seat"), String(landlordSeat));
    }
    assert.equal(await landlord!.page.$("#shown-hand"), null, "the landlord's own cards are in its hand, not again at its seat");
    await inView(c.page, "#hand [data-card]");
    if (c !== landlord) await shot(c.page, "doudizhu-rob-shown-phone");
    // Nobody sees the other farmer's cards: only the landlord's were shown.
    for (const [i, f] of farmers.entries()) {
      const other = await hand(farmers[1 - i]!.page);
      const html = await f.page.content();
      for (const card of other) assert.ok(!new RegExp(`\\b${card}\\b`).test(html), `${f.name}'s page holds ${card} of the other farmer`);
    }
    const spectatorHtml = await watcher.page.content();
    for (const f of farmers) for (const card of await hand(f.page)) assert.ok(!new RegExp(`\\b${card}\\b`).test(spectatorHtml), `the spectator sees a farmer's ${card}`);

    // The play: Hint and Play (or pass) to the deal's end; the shown hand follows the landlord's cards.
    for (let turns = 0; ; turns++) {
      const actor = await until("a seat to play, or the end", async () => {
        if (await a.page.$("#result")) return "over" as const;
        for (const p of players) if ((await myTurn(p.page)) && (await decisionOf(p.page)) === "PLAY") return p;
        return null;
      });
      if (actor === "over") break;
      if (turns === 0) await assertButtons(actor.page, "PLAY");
      const picked = await pressHint(actor.page);
      await actor.page.click(picked > 0 ? "#play" : "#pass");
      await until("the turn to move on", async () => !(await myTurn(actor.page)) || (await actor.page.$("#result")) !== null);
      if (actor === landlord && !(await watcher.page.$("#result"))) {
        const left = (await hand(landlord.page)).length;
        if (left > 0) await until("the shown hand after the landlord's play", async () => (await shownOn(farmers[0]!.page)).length === left || (await farmers[0]!.page.$("#result")) !== null);
      }
      assert.ok(turns < 150, "the deal ends");
    }

    // The result says the rob, the show and who doubled.
    for (const page of [...players.map((p) => p.page), watcher.page]) await page.waitForSelector("#result");
    const description = (await watcher.page.textContent("#result .description")) ?? "";
    assert.match(description, /抢地主 1 次/);
    assert.match(description, /明牌/);
    assert.match(description, /加倍：/);
    for (const f of farmers) assert.ok(description.includes(f.name), `${f.name} doubled: ${description}`);
    assert.ok(!description.includes(landlord!.name), `the landlord did not double: ${description}`);
    for (const f of farmers) assert.match((await watcher.page.textContent(`#result tr[data-player="${f.name}"]`)) ?? "", /加倍/);
    await shot(watcher.page, "doudizhu-rob-result");
    assert.deepEqual(players.flatMap((p) => p.problems), []);
  } finally {
    await browser.close();
  }
});

test("a phone player plays 癞子 deals with two bots: each decision's buttons in view, the wild rank marked on every card of it, the reading chooser for cards read more than one way", async () => {
  const browser = await launch();
  try {
    const p = await open(browser, player("lz"), { size: "phone" });
    p.page.on("dialog", (dialog) => void dialog.accept());
    await p.page.click('[data-room="doudizhu-laizi-free"] [data-action="friends"]');
    await playWithBots(p.page);
    const tableId = (await attr(p.page, ".doudizhu-table", "data-table"))!;
    assert.equal((await p.page.textContent("#rule-set"))?.trim(), "癞子");
    const dealer = await dealerAs(p.page);

    let wildChecked = false;
    let chooserChecked = false;
    const decisions = new Set<string>();
    for (let deal = 1; deal <= 5 && !(wildChecked && chooserChecked && deal > 1); deal++) {
      await until(`deal ${deal}`, async () => (await attr(p.page, ".doudizhu-table", "data-deal")) === String(deal), 30000);
      let wildThisDeal = false;
      for (let turns = 0; ; turns++) {
        const next = await until(
          "the player's decision or the end",
          async () => ((await p.page.$("#result")) ? "END" : (await myTurn(p.page)) ? await decisionOf(p.page) : null),
          60000,
        );
        if (next === "END") break;
        await inView(p.page, "#actions button");
        await inView(p.page, "#hand [data-card]");
        if (next !== "PLAY") {
          assert.ok(next! in DECISIONS, `a decision of the laizi rule set: ${next}`);
          await assertButtons(p.page, next!);
          decisions.add(next!);
          // Call, rob once, double and show: the player wants the cards.
          const yes = next !== "ROB" || (await p.page.$$('.seat[data-seat] [data-call="ROB"]')).length === 0;
          await p.page.click(yes ? DECISIONS[next!]!.yes : DECISIONS[next!]!.no);
          await acted(p, next!);
          continue;
        }
        await assertButtons(p.page, "PLAY");
        // The wild rank (癞子), drawn once the landlord is known: every card of it marked, no other.
        const wild = await attr(p.page, "#wild-rank", "data-rank");
        assert.ok(wild && /^[3-9TJQKA2]$/.test(wild), `the wild rank is shown: ${wild}`);
        if (!wildThisDeal) {
          const faces = await p.page.$$eval("#hand [data-card]", (els) =>
            els.map((e) => ({
              card: e.getAttribute("data-card")!,
              wild: e.getAttribute("data-wild") === "true",
              mark: e.querySelector(".wild-mark")?.textContent ?? "",
              spoken: e.querySelector(".sr-only")?.textContent ?? "",
            })),
          );
          for (const f of faces) {
            const ofWildRank: boolean = f.card !== "BJ" && f.card !== "RJ" && f.card.slice(1) === wild;
            assert.equal(f.wild, ofWildRank, `${f.card} marked wild exactly when of rank ${wild}`);
            if (ofWildRank) {
              assert.equal(f.mark, "癞", `${f.card}'s corner mark`);
              assert.equal(f.spoken, "癞子", `${f.card} said wild to a screen reader`);
            } else {
              assert.equal(f.mark, "", `${f.card} has no wild mark`);
            }
          }
          if (faces.some((f) => f.wild)) {
            await inView(p.page, "#hand .wild-mark");
            // The mark shows in the strip of the card left uncovered by the next one.
            const visible = await p.page.$$eval("#hand .wild-mark", (marks) =>
              marks.every((m) => {
                const r = m.getBoundingClientRect();
                const top = document.elementFromPoint(r.left + 2, r.top + r.height / 2);
                return top !== null && (top === m || m.parentElement === top || m.parentElement!.contains(top));
              }),
            );
            assert.ok(visible, "every wild mark in the hand is visible, not under the next card");
            await shot(p.page, "doudizhu-laizi-wild-phone");
            wildChecked = true;
          }
          wildThisDeal = true;
        }
        // Cards Hint reads more than one way: picked by hand, Play asks which reading.
        if (!chooserChecked) {
          const { plays } = await dealer.hint({ tableId });
          const ambiguous = plays.map((h) => readingsOf(h.cards, plays)).find((readings) => readings.length > 1);
          if (ambiguous) {
            const chosen: Hint = ambiguous.at(-1)!;
            const selectedNow = () => p.page.$$eval("#hand .card.selected", (els) => els.map((e) => e.getAttribute("data-card")!).sort().join(" "));
            const want = [...chosen.cards].sort().join(" ");
            try {
              for (const card of chosen.cards) await p.page.click(`#hand [data-card="${card}"]`, { position: { x: 6, y: 24 }, timeout: 5000 });
              await until("the cards picked", async () => (await selectedNow()) === want, 5000);
              await p.page.click("#play", { timeout: 5000 });
              await p.page.waitForSelector("#readings", { timeout: 15000 });
            } catch (err) {
              // On a loaded machine the turn (20 s) may run out meanwhile and the server
              // plays for the player: try again at a later turn.
              if (!(await myTurn(p.page)) || (await decisionOf(p.page)) !== "PLAY") continue;
              if ((await selectedNow()) === want) throw err;
              // A tap lost while the page drew itself again: put the cards down, try again.
              for (const card of (await selectedNow()).split(" ").filter(Boolean)) await p.page.click(`#hand [data-card="${card}"]`, { position: { x: 6, y: 24 }, timeout: 5000 }).catch(() => undefined);
              continue;
            }
            const offered = await p.page.$$eval("#readings [data-meant]", (els) => els.map((e) => [e.getAttribute("data-meant")!, e.textContent ?? ""] as const));
            assert.deepEqual(offered.map(([meant]) => meant), ambiguous.map((r) => r.meant), "every reading Hint gave, once");
            for (const [, words] of offered) assert.match(words, /癞子当/, `a reading in words: ${words}`);
            await inView(p.page, "#readings [data-meant]:first-child");
            await inView(p.page, "#readings-cancel");
            await shot(p.page, "doudizhu-laizi-chooser-phone");
            await p.page.click(`#readings [data-meant="${chosen.meant}"]`);
            await until("the play made", async () => !(await myTurn(p.page)) || (await p.page.$("#result")) !== null);
            assert.equal(await p.page.$("#readings"), null, "the chooser closes");
            await until("the play in the log, with what the wilds stood for", async () => /癞子当/.test((await p.page.textContent("#log")) ?? ""));
            chooserChecked = true;
            continue;
          }
        }
        const picked = await pressHint(p.page);
        if (picked > 0) {
          const notice = (await p.page.textContent("#notice").catch(() => null)) ?? "";
          if (notice) assert.match(notice, /^提示：/, "a hint's reading in words");
          await p.page.click("#play");
          // A hint's reading goes with it: never the chooser.
          assert.equal(await p.page.$("#readings"), null);
        } else {
          const notice = (await p.page.textContent("#notice").catch(() => null)) ?? "";
          assert.ok(await p.page.$("#pass"), `Hint selected nothing where the player must lead: ${notice}`);
          await p.page.click("#pass");
        }
        await until("the turn to move on", async () => !(await myTurn(p.page)) || (await p.page.$("#result")) !== null);
        assert.ok(turns < 60, "the deal ends");
      }
      await p.page.waitForSelector("#result");
      const description = (await p.page.textContent("#result .description")) ?? "";
      const redeal = (await attr(p.page, "#result", "data-outcome")) === "REDEAL";
      if (!redeal) {
        assert.match(description, /倍数 ×\d+/);
        if (decisions.has("DOUBLE")) assert.match(description, /加倍：|无人加倍/);
      }
      await p.page.waitForSelector("#next-deal:not([disabled])");
      if (deal === 1) await shot(p.page, "doudizhu-laizi-result-phone");
      await p.page.click("#next-deal");
    }
    assert.ok(wildChecked, "the player held a wild card in one of the deals");
    assert.ok(chooserChecked, "the player had cards read more than one way in one of the deals");
    assert.ok(decisions.has("DOUBLE"), "the player was asked to double");
    assert.deepEqual(p.problems, []);
  } finally {
    await browser.close();
  }
});
