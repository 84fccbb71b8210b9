// A room's watch list in a real browser: two named players play in gomoku-free; a third
// opens the room's list, finds their table by their names with its stage, and clicking
// it shows the game in the spectator view.

import { test } from "node:test";
import assert from "node:assert/strict";
import { launch, open, place, player, seat, setName, shot, until } from "./harness.js";
import { stringsOf } from "../src/i18n/index.js";

const F = stringsOf("zh-CN").friends;

test("the watch list shows a room's tables by the players' names, and a row opens the spectator view", async () => {
  const browser = await launch();
  try {
    const [idA, idB, idC] = [player("wl-a"), player("wl-b"), player("wl-c")];
    const [a, b, c] = await Promise.all([open(browser, idA), open(browser, idB), open(browser, idC)]);
    await setName(a, "王五");
    await setName(b, "赵六");
    const [black, white] = await seat(a, b, "gomoku-free");
    await place(black, [white], "h8");
    await place(white, [black], "a1");

    await c.page.click('[data-room="gomoku-free"] [data-action="tables"]');
    const row = `#tables tr[data-table]:has(.listed-player[data-player="${idA}"])`;
    await until(
      "the table in the list",
      async () => {
        const found = await c.page.$(row);
        if (!found) {
          await c.page.click("#refresh-tables").catch(() => undefined);
          await c.page.waitForTimeout(500);
        }
        return found;
      },
      30000,
    );
    const text = (await c.page.textContent(row)) ?? "";
    assert.match(text, /王五/);
    assert.match(text, /赵六/);
    assert.ok(text.includes(`${F.gameN(1)} · ${F.stones(2)} · ${F.phases.PHASE_PLAY}`), `the stage: ${text}`);
    await shot(c.page, "watch-list");

    await c.page.click(row);
    await c.page.waitForSelector('[data-point="h8"][data-stone="black"]');
    assert.match(new URL(c.page.url()).hash, /^#\/watch\/gomoku\/gt-/);
    assert.equal(await c.page.getAttribute("#status", "data-my-turn"), "false", "a spectator never has the turn");
    const names = await c.page.$$eval(".player .name", (els) => els.map((e) => e.textContent ?? ""));
    assert.ok(names.some((n) => n.includes("王五")) && names.some((n) => n.includes("赵六")), `names at the table: ${names}`);

    // The spectator follows the game to its end.
    for (const [i, point] of ["h9", "h10", "h11", "h12"].entries()) {
      await place(black, [white], point);
      if (i < 3) await place(white, [black], ["a3", "a5", "a7"][i]!);
    }
    await c.page.waitForSelector("#result");
    const winner = black === a ? "王五" : "赵六";
    assert.match((await c.page.textContent("#result .headline")) ?? "", new RegExp(winner));
    assert.deepEqual([...a.problems, ...b.problems, ...c.problems], []);
  } finally {
    await browser.close();
  }
});
