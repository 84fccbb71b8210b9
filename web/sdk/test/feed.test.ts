// The table feed: GetTable, then Watch after the last event; a dropped stream resumed
// without missing or repeating an event; the player's table found again through
// LocatePlayer (a feed from the session alone, a feed of a table that closed).

import assert from "node:assert/strict";
import { test } from "node:test";
import { followTable, requestId, type FeedState, type TableWhy } from "../src/index.js";
import type { Table, TableEvent } from "../src/gen/gamehub/gomoku/v1/gomoku_pb.js";
import { BLACK_FIVE, place, player, seatPair, until, WHITE_MOVES } from "./helpers.js";

/** A fetch whose open Watch streams the test can cut, as a dropped connection would. */
function cuttableFetch() {
  const open = new Set<AbortController>();
  const fetchFn: typeof globalThis.fetch = (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (!url.endsWith("/Watch")) return globalThis.fetch(input, init);
    const cut = new AbortController();
    open.add(cut);
    const signal = init?.signal ? AbortSignal.any([init.signal, cut.signal]) : cut.signal;
    return globalThis.fetch(input, { ...init, signal });
  };
  return {
    fetchFn,
    cut: () => {
      const n = open.size;
      for (const c of open) c.abort(new Error("connection dropped by the test"));
      open.clear();
      return n;
    },
  };
}

interface Seen {
  tables: { table: Table; why: TableWhy }[];
  events: TableEvent[];
  states: FeedState[];
}

function recorder(): Seen & { onTable: (t: Table, why: TableWhy) => void; onEvent: (e: TableEvent) => void; onState: (s: FeedState) => void } {
  const seen: Seen = { tables: [], events: [], states: [] };
  return {
    ...seen,
    onTable: (table, why) => seen.tables.push({ table, why }),
    onEvent: (event) => seen.events.push(event),
    onState: (state) => seen.states.push(state),
  };
}

const stonesOf = (events: TableEvent[]) =>
  events.flatMap((e) => (e.kind.case === "stonePlaced" ? [e.kind.value.stone?.point?.text ?? "?"] : []));

test("a dropped Watch resumes after the last event: every event once, in order, none missed", async () => {
  const cuttable = cuttableFetch();
  const [a, b, watcher] = await Promise.all([player("drop-a"), player("drop-b"), player("drop-w", { fetch: cuttable.fetchFn })]);
  const [black, white, tableId] = await seatPair(a, b);
  const seen = recorder();
  // A spectator's feed (any token may watch a Gomoku table), with quick reconnections.
  const feed = followTable(watcher, { game: "gomoku", tableId, relocate: false, backoffMs: [100], ...seen });
  await until("the first table", () => seen.tables.length === 1);
  const first = seen.tables[0]!;
  assert.equal(first.why, "snapshot");
  assert.equal(first.table.tableId, tableId);
  await until("the feed is live", () => seen.states.includes("live") || feed.lastEventId() >= first.table.lastEventId);

  const moves: string[] = [];
  for (let i = 0; i < BLACK_FIVE.length; i++) {
    if (i === 2) {
      // Mid-game: cut the stream, then play while it is down.
      await until("an open Watch", () => cuttable.cut() > 0);
      await place(black, tableId, BLACK_FIVE[i]!);
      moves.push(BLACK_FIVE[i]!);
      await place(white, tableId, WHITE_MOVES[i]!);
      moves.push(WHITE_MOVES[i]!);
      await until("the feed reconnecting", () => seen.states.includes("reconnecting"));
      continue;
    }
    await place(black, tableId, BLACK_FIVE[i]!);
    moves.push(BLACK_FIVE[i]!);
    if (i < WHITE_MOVES.length) {
      await place(white, tableId, WHITE_MOVES[i]!);
      moves.push(WHITE_MOVES[i]!);
    }
  }
  await until("the game over event", () => seen.events.some((e) => e.kind.case === "gameOver"));
  const ids = seen.events.map((e) => e.eventId);
  const expected = ids.map((_, i) => first.table.lastEventId + BigInt(i) + 1n);
  assert.deepEqual(ids, expected, "event ids follow the snapshot one by one: none missed, none twice");
  assert.deepEqual(stonesOf(seen.events), moves, "every stone once, in order");
  assert.ok(seen.states.indexOf("reconnecting") < seen.states.lastIndexOf("live"), `live again after the drop: ${seen.states.join(" → ")}`);
  assert.equal(seen.tables.length, 1, "no second snapshot was needed");
  assert.equal(feed.lastEventId(), seen.events.at(-1)!.eventId, `${seen.events.map((e) => `${e.eventId}:${e.kind.case}`).join(" ")}`);

  // A later feed resumed after the last event id brings only what came after it.
  feed.stop();
  assert.equal(await feed.done, "stopped");
  await white.gomoku.nextGame({ tableId, requestId: requestId() });
  const later = recorder();
  const resumed = followTable(watcher, { game: "gomoku", tableId, afterEventId: feed.lastEventId(), relocate: false, ...later });
  await until("the next-game request", () => later.events.some((e) => e.kind.case === "nextGameRequested"));
  assert.equal(later.tables.length, 0, "resuming needs no snapshot");
  assert.equal(later.events[0]!.eventId, feed.lastEventId() + 1n);
  resumed.stop();
});

test("a feed from the player's session alone finds its table through LocatePlayer", async () => {
  const [a, b] = await Promise.all([player("locate-a"), player("locate-b")]);
  const [black, , tableId] = await seatPair(a, b);
  await place(black, tableId, "h8");
  const seen = recorder();
  const feed = followTable(black, { game: "gomoku", ...seen });
  await until("the player's table", () => seen.tables.length > 0);
  assert.equal(feed.tableId(), tableId);
  assert.equal(seen.tables[0]!.table.tableId, tableId);
  assert.equal(seen.tables[0]!.table.yourSeat !== undefined, true, "the player's own view");
  assert.deepEqual(seen.tables[0]!.table.game?.stones.map((s) => s.point?.text), ["h8"]);
  feed.stop();

  // Nobody seated, no ticket: the feed says so and ends.
  const idle = await player("locate-idle");
  const nothing = recorder();
  const none = followTable(idle, { game: "gomoku", ...nothing });
  assert.equal(await none.done, "closed");
  assert.equal(none.tableId(), null);
  assert.deepEqual(nothing.states, ["relocating", "closed"]);
});

test("a feed of a table that closed moves to the player's next table through LocatePlayer", async () => {
  const [a, b] = await Promise.all([player("move-a"), player("move-b")]);
  const [black, white, first] = await seatPair(a, b);
  // White leaves before a stone: the table closes. Both queue again and sit at a new table.
  await white.gomoku.leave({ tableId: first, requestId: requestId() });
  const [black2, white2, second] = await seatPair(black, white);
  assert.notEqual(second, first);
  await place(black2, second, "h8");

  // A feed of the table the page last knew (e.g. a reload after a while) goes on at the next one.
  const seen = recorder();
  const feed = followTable(a, { game: "gomoku", tableId: first, backoffMs: [100], ...seen });
  await until("the next table's view", () => seen.tables.some((t) => t.why === "moved"));
  assert.equal(seen.tables[0]!.why, "snapshot");
  assert.equal(seen.tables[0]!.table.tableId, first, "first the closed table as it ended");
  const moved = seen.tables.find((t) => t.why === "moved")!;
  assert.equal(moved.table.tableId, second);
  assert.equal(feed.tableId(), second);
  assert.deepEqual(moved.table.game?.stones.map((s) => s.point?.text), ["h8"]);
  assert.ok(seen.states.includes("relocating"));
  // The next table's events come on, after its view.
  await place(white2, second, "a1");
  await until("a stone at the next table", () => stonesOf(seen.events).includes("a1"));
  assert.ok(seen.events.every((e) => e.eventId > moved.table.lastEventId));

  // Closed with nowhere to go: white leaves the second table too (an escape). The feed
  // still brings what follows the close (the game's settlement), then ends.
  await white2.gomoku.leave({ tableId: second, requestId: requestId() });
  assert.equal(await feed.done, "closed");
  assert.equal(seen.states.at(-1), "closed");
  const kinds = seen.events.map((e) => e.kind.case);
  assert.ok(kinds.includes("tableClosed"), `the close event: ${kinds.join(" ")}`);
  assert.ok(kinds.indexOf("gameSettled") > kinds.indexOf("tableClosed"), `the settlement after the close: ${kinds.join(" ")}`);
});

test("at a friends' table the feed waits for the next game table and moves to it (LocatePlayer)", async () => {
  const [a, b] = await Promise.all([player("friends-a"), player("friends-b")]);
  const { table: opened } = await a.matchmaking.openFriendsTable({ roomId: "gomoku-free", requestId: requestId() });
  const code = opened!.code;
  const play = async () => {
    await b.matchmaking.joinFriendsTable({ code });
    await a.matchmaking.setReady({ code, ready: true });
    await b.matchmaking.setReady({ code, ready: true });
  };
  const gameTable = (not: string | null) =>
    until("the friends' table's game table", async () => {
      const id = (await a.matchmaking.getFriendsTable({ code })).table?.game?.tableId;
      return id && id !== not ? id : null;
    });
  await play();
  const first = await gameTable(null);
  const seen = recorder();
  const feed = followTable(a, { game: "gomoku", tableId: first, ...seen });
  await until("the first game table", () => seen.tables.length === 1 && seen.states.includes("live"));
  // The friend leaves the game table: it closes, and the friends' table is back in its
  // lobby with the owner still seated. The owner's feed waits (LocatePlayer names the
  // friends' table) until the friend sits down again and a new game table opens.
  await b.gomoku.leave({ tableId: first, requestId: requestId() });
  await until("the close event", () => seen.events.some((e) => e.kind.case === "tableClosed"));
  await until("the friends' lobby", async () => (await a.matchmaking.getFriendsTable({ code })).table?.seats.filter((s) => s.playerId).length === 1);
  assert.equal(feed.tableId(), first, "no other table yet: the feed waits");
  assert.equal(seen.states.at(-1), "relocating");
  await play();
  const second = await gameTable(first);
  await until("the feed at the next game table", () => feed.tableId() === second);
  await until("its view", () => seen.tables.some((t) => t.why === "moved" && t.table.tableId === second));
  feed.stop();
  assert.equal(await feed.done, "stopped");
  await a.matchmaking.closeFriendsTable({ code });
});
