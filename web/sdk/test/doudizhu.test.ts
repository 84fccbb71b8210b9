// followTable at a Dou Dizhu table: three players queued by the SDK, each feed found
// through LocatePlayer with the player's own hand; a bid reaches every feed once; a
// spectator's feed never carries a hand.

import assert from "node:assert/strict";
import { test } from "node:test";
import { followTable, requestId, type Gamehub, type TableWhy } from "../src/index.js";
import { GameType } from "../src/gen/gamehub/common/v1/common_pb.js";
import type { Table, TableEvent } from "../src/gen/gamehub/doudizhu/v1/doudizhu_pb.js";
import { operator, player, until } from "./helpers.js";

interface Seen {
  tables: { table: Table; why: TableWhy }[];
  events: TableEvent[];
}

test("three players' feeds at a Dou Dizhu table: each its own hand, a bid delivered once to all; a spectator sees no hand", async () => {
  const players = await Promise.all(["dz-a", "dz-b", "dz-c"].map((p) => player(p)));
  const ops = await operator();
  for (const p of players) {
    await ops.ledger.grantSilver({ requestId: requestId(), playerId: p.id, amountSilver: 100_000n, reason: "sdk test" });
  }
  for (const p of players) await p.matchmaking.enqueue({ roomId: "doudizhu-classic", requestId: requestId() });
  const seats = await Promise.all(
    players.map((p) => until(`${p.id} seated`, async () => (await p.matchmaking.locatePlayer({})).seat, 30000)),
  );
  assert.ok(seats.every((s) => s.gameType === GameType.DOUDIZHU && s.tableId === seats[0]!.tableId), "one Dou Dizhu table");
  const tableId = seats[0]!.tableId;

  const seen = new Map<Gamehub, Seen>();
  const feeds = players.map((p) => {
    const s: Seen = { tables: [], events: [] };
    seen.set(p, s);
    return followTable(p, { game: "doudizhu", onTable: (table, why) => s.tables.push({ table, why }), onEvent: (e) => s.events.push(e) });
  });
  const watcher = await player("dz-watch");
  const spectator: Seen = { tables: [], events: [] };
  const watching = followTable(watcher, {
    game: "doudizhu",
    tableId,
    relocate: false,
    onTable: (table, why) => spectator.tables.push({ table, why }),
    onEvent: (e) => spectator.events.push(e),
  });

  await until("every feed's table", () => [...seen.values(), spectator].every((s) => s.tables.length > 0));
  for (const [i, p] of players.entries()) {
    const first = seen.get(p)!.tables[0]!;
    assert.equal(first.table.tableId, tableId, "LocatePlayer found the table");
    assert.equal(first.table.viewerSeat, seats[i]!.seat);
    assert.equal(first.table.hand.length, 17, "the player's own 17 cards");
  }
  assert.equal(spectator.tables[0]!.table.hand.length, 0, "a spectator has no hand");

  // Whoever is to act bids 3 (landlord at once).
  const table = seen.get(players[0]!)!.tables[0]!.table;
  const bidder = players[seats.findIndex((s) => s.seat === table.toAct)]!;
  await bidder.doudizhu.bid({ tableId, requestId: requestId(), points: 3 });
  for (const s of [...seen.values(), spectator]) {
    await until("the bid in every feed", () => s.events.some((e) => e.kind.case === "landlordChosen"));
    const bids = s.events.filter((e) => e.kind.case === "bidMade");
    assert.equal(bids.length, 1, "the bid once");
    const ids = s.events.map((e) => e.eventId);
    assert.deepEqual(ids, [...ids].sort((x, y) => (x < y ? -1 : 1)), "in order");
    assert.equal(new Set(ids).size, ids.length, "none twice");
  }
  assert.ok(!spectator.events.some((e) => e.kind.case === "handDealt"), "a spectator never gets a hand");
  for (const f of [...feeds, watching]) f.stop();
});
