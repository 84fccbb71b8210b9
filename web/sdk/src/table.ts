// One game table followed: GetTable for the state, then the resumable Watch after the
// last event, every event once and in order; when the table is gone or closed, the
// player's table found again through LocatePlayer (a friends' table's next game table,
// a table the player was seated at since).

import { Code } from "@connectrpc/connect";
import type { Gamehub } from "./client.js";
import { asConnectError, retryAfterMs } from "./errors.js";
import { retryable } from "./follow.js";
import { GameType } from "./gen/gamehub/common/v1/common_pb.js";
import * as dz from "./gen/gamehub/doudizhu/v1/doudizhu_pb.js";
import * as gm from "./gen/gamehub/gomoku/v1/gomoku_pb.js";

export type Game = "gomoku" | "doudizhu";
export type TableOf<G extends Game> = G extends "gomoku" ? gm.Table : dz.Table;
export type TableEventOf<G extends Game> = G extends "gomoku" ? gm.TableEvent : dz.TableEvent;

/** Why `onTable` got a table. */
export type TableWhy = "snapshot" | "trimmed" | "moved";

/** Where a feed is: `closed` (the table closed, no other table to go to), `stopped` (given up, or `stop()`). */
export type FeedState = "live" | "reconnecting" | "relocating" | "closed" | "stopped";

export interface FollowTableOptions<G extends Game> {
  game: G;
  /** The table; unset: the table the player sits at now (LocatePlayer). */
  tableId?: string;
  /**
   * Resume after this event id: the events after it come first (or, when the server
   * trimmed them, a fresh table: `onTable(table, "trimmed")`). Unset: GetTable first.
   */
  afterEventId?: bigint;
  /** The table as the viewer sees it: first (`snapshot`), after trimmed events (`trimmed`), at the player's next table (`moved`). */
  onTable?: (table: TableOf<G>, why: TableWhy) => void;
  /** Each event after the last one delivered, in order, never twice. */
  onEvent?: (event: TableEventOf<G>, tableId: string) => void;
  /** The feed's state; `err` with `stopped` when an error ended it. */
  onState?: (state: FeedState, err?: unknown) => void;
  /**
   * When the table is gone or closed, ask LocatePlayer where the player sits now and go
   * on there (and wait, asking again, while the player has a ticket or a friends' table
   * that will seat it). Default true; a spectator's feed should say false.
   */
  relocate?: boolean;
  /**
   * After the table closed with no next table for the player: how long the stream
   * still brings events (the last game's settlement comes after the close) before the
   * feed ends `closed`, in ms. Default 3000.
   */
  lingerMs?: number;
  /** Dou Dizhu: the spectator view even when seated. */
  asSpectator?: boolean;
  /** Reopenings in a row that bring nothing before giving up. Default 10. */
  maxEmptyAttempts?: number;
  /** Waits between reopenings, in ms (the last repeats); a retry hint from the server wins when longer. */
  backoffMs?: number[];
}

export interface TableFeed {
  /** The table followed now (null until LocatePlayer found one). */
  tableId(): string | null;
  /** The last event id delivered (resume a later feed after it). */
  lastEventId(): bigint;
  stop(): void;
  /** Resolves with the final state when the feed ends. */
  done: Promise<"closed" | "stopped">;
}

interface Access<T, E> {
  read: (tableId: string, signal: AbortSignal) => Promise<T | undefined>;
  watch: (tableId: string, after: bigint, signal: AbortSignal) => AsyncIterable<{ snapshot?: T; event?: E }>;
  tableId: (t: T) => string;
  last: (t: T) => bigint;
  closed: (t: T) => boolean;
  eventId: (e: E) => bigint;
  closes: (e: E) => boolean;
  gameType: GameType;
}

function access(client: Gamehub, game: Game, asSpectator: boolean): Access<gm.Table | dz.Table, gm.TableEvent | dz.TableEvent> {
  if (game === "gomoku") {
    return {
      read: async (tableId, signal) => (await client.gomoku.getTable({ tableId }, { signal })).table,
      watch: async function* (tableId, afterEventId, signal) {
        for await (const r of client.gomoku.watch({ tableId, afterEventId }, { signal })) {
          if (r.item.case === "table") yield { snapshot: r.item.value };
          else if (r.item.case === "event") yield { event: r.item.value };
        }
      },
      tableId: (t) => t.tableId,
      last: (t) => BigInt(t.lastEventId),
      closed: (t) => (t as gm.Table).status === gm.TableStatus.CLOSED,
      eventId: (e) => BigInt(e.eventId),
      closes: (e) => e.kind.case === "tableClosed",
      gameType: GameType.GOMOKU,
    };
  }
  return {
    read: async (tableId, signal) => (await client.doudizhu.getTable({ tableId, asSpectator }, { signal })).table,
    watch: async function* (tableId, afterEventId, signal) {
      for await (const r of client.doudizhu.watch({ tableId, afterEventId, asSpectator }, { signal })) {
        if (r.item.case === "snapshot") yield { snapshot: r.item.value };
        else if (r.item.case === "event") yield { event: r.item.value };
      }
    },
    tableId: (t) => t.tableId,
    last: (t) => BigInt(t.lastEventId),
    closed: (t) => (t as dz.Table).status === dz.TableStatus.CLOSED,
    eventId: (e) => BigInt(e.eventId),
    closes: (e) => e.kind.case === "tableClosed",
    gameType: GameType.DOUDIZHU,
  };
}

/** The table of `gameType` the caller sits at now, whether one may come (a live ticket, a friends' table), per LocatePlayer. */
export async function locateTable(client: Gamehub, gameType: GameType, signal?: AbortSignal): Promise<{ tableId: string | null; pending: boolean }> {
  const where = await client.matchmaking.locatePlayer({}, { signal });
  const seat = where.seat && where.seat.gameType === gameType ? where.seat.tableId : null;
  return { tableId: seat || null, pending: !seat && (where.ticket !== undefined || where.friendsTable !== undefined) };
}

/** Errors that say the table is not (or no longer) there for this viewer. */
function gone(err: unknown): boolean {
  const code = asConnectError(err).code;
  return code === Code.NotFound || code === Code.PermissionDenied || code === Code.FailedPrecondition;
}

/**
 * Follows a Gomoku or Dou Dizhu table; see `FollowTableOptions`. Each event is
 * delivered once, in order, across dropped streams (resumed after the last event id,
 * with backoff or the server's retry hint) and across tables the feed moves to.
 */
export function followTable<G extends Game>(client: Gamehub, options: FollowTableOptions<G>): TableFeed {
  const a = access(client, options.game, options.asSpectator ?? false);
  const abort = new AbortController();
  const signal = abort.signal;
  const backoff = options.backoffMs ?? [250, 500, 1000, 2000, 5000];
  const maxEmpty = options.maxEmptyAttempts ?? 10;
  const relocate = options.relocate ?? true;
  const lingerMs = options.lingerMs ?? 3000;
  let tableId: string | null = options.tableId ?? null;
  let after: bigint | null = options.afterEventId ?? null;
  let state: FeedState | null = null;
  const setState = (s: FeedState, err?: unknown) => {
    if (s === state && err === undefined) return;
    state = s;
    options.onState?.(s, err);
  };
  const onTable = (t: gm.Table | dz.Table, why: TableWhy) => options.onTable?.(t as TableOf<G>, why);
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
    });

  // Where to go when the table is gone or closed: the next table's id, or null (the end).
  const relocateFrom = async (from: string | null): Promise<string | null> => {
    if (!relocate && from !== null) return null;
    setState("relocating");
    for (let round = 0; !signal.aborted; round++) {
      try {
        const found = await locateTable(client, a.gameType, signal);
        if (found.tableId && found.tableId !== from) return found.tableId;
        if (!found.pending) return null;
      } catch (err) {
        if (signal.aborted || !retryable(err)) throw err;
      }
      await wait(Math.min(1000 * (round + 1), 5000));
    }
    return null;
  };

  const run = async (): Promise<"closed" | "stopped"> => {
    let why: TableWhy = "snapshot";
    let attempt = 0;
    for (;;) {
      if (signal.aborted) return "stopped";
      if (tableId === null) {
        tableId = await relocateFrom(null);
        if (tableId === null) {
          setState("closed");
          return "closed";
        }
        after = null;
      }
      let closed = false;
      let hint: number | undefined;
      // This table's stream; ended early once the player's next table is known, or a
      // while (`lingerMs`) after the table closed with nowhere to go.
      const stream = new AbortController();
      const endStream = () => stream.abort();
      signal.addEventListener("abort", endStream, { once: true });
      let linger: ReturnType<typeof setTimeout> | undefined;
      let relocation: Promise<string | null | undefined> | null = null;
      const from = tableId;
      // The table closed: look for the player's next table at once, while the stream
      // still brings what comes after the close (the last game's settlement).
      const closing = () => {
        closed = true;
        relocation ??= relocateFrom(from).then(
          (next) => {
            if (next !== null) endStream();
            else linger = setTimeout(endStream, lingerMs);
            return next;
          },
          (err: unknown) => {
            setState("stopped", err);
            endStream();
            return undefined;
          },
        );
      };
      try {
        if (after === null) {
          const table = await a.read(tableId, signal);
          if (!table) throw new Error("GetTable answered no table");
          after = a.last(table);
          onTable(table, why);
          if (a.closed(table)) closing();
          else setState("live");
        }
        if (!closed) {
          for await (const item of a.watch(tableId, after, stream.signal)) {
            if (!closed && (attempt > 0 || state !== "live")) setState("live");
            attempt = 0;
            if (item.snapshot) {
              // A fresh watch's first item, or a resume whose events were trimmed.
              if (a.last(item.snapshot) >= after) {
                after = a.last(item.snapshot);
                onTable(item.snapshot, "trimmed");
              }
              if (a.closed(item.snapshot)) closing();
            } else if (item.event) {
              const id = a.eventId(item.event);
              if (id <= after) continue; // already delivered
              after = id;
              options.onEvent?.(item.event as TableEventOf<G>, tableId);
              if (a.closes(item.event)) closing();
            }
          }
        }
      } catch (err) {
        if (signal.aborted) return "stopped";
        if (!stream.signal.aborted) {
          if (gone(err)) closing();
          else if (!retryable(err)) {
            setState("stopped", err);
            return "stopped";
          } else hint = retryAfterMs(err);
        }
      } finally {
        signal.removeEventListener("abort", endStream);
      }
      if (signal.aborted) return "stopped";
      if (closed) {
        const next = await relocation!;
        clearTimeout(linger);
        if (next === undefined) return "stopped";
        if (next === null) {
          setState("closed");
          return "closed";
        }
        tableId = next;
        after = null;
        why = "moved";
        attempt = 0;
        continue;
      }
      // The stream ended or broke: resume after the last event delivered.
      attempt += 1;
      if (attempt > maxEmpty) {
        setState("stopped");
        return "stopped";
      }
      setState("reconnecting");
      await wait(Math.max(hint ?? 0, backoff[Math.min(attempt, backoff.length) - 1] ?? 1000));
    }
  };

  const done = run().then(
    (end) => {
      if (end === "stopped" && state !== "stopped") setState("stopped");
      return end;
    },
    (err: unknown) => {
      setState("stopped", err);
      return "stopped" as const;
    },
  );
  return {
    tableId: () => tableId,
    lastEventId: () => after ?? 0n,
    stop: () => abort.abort(),
    done,
  };
}
