// A resumable server stream: opened again after the last event id it brought whenever
// it ends or breaks, waiting the server's retry hint or a backoff in between.

import { Code } from "@connectrpc/connect";
import { asConnectError, retryAfterMs } from "./errors.js";

/** Where a followed stream is. */
export type StreamState = "live" | "reconnecting" | "stopped";

export interface FollowOptions<T> {
  /** Opens the stream after an event id (0: from the start; the server then sends a snapshot first). */
  open: (afterEventId: bigint, signal: AbortSignal) => AsyncIterable<T>;
  /** The event id an item brings the stream to (a snapshot's last event id, an event's id), or null. */
  eventId: (item: T) => bigint | null;
  onItem: (item: T) => void;
  onState?: (state: StreamState, err?: unknown) => void;
  /** Start after this event id. Default 0. */
  afterEventId?: bigint;
  /** Reopenings in a row that bring nothing before giving up. Default 10 (about 40 s). */
  maxEmptyAttempts?: number;
  /** The waits between reopenings, in ms; the last repeats. Default 250, 500, 1000, 2000, 5000. */
  backoffMs?: number[];
  /** The longest retry hint waited for, in ms; past it the stream stops. Default 60000. */
  maxHintMs?: number;
}

export interface Follower {
  stop: () => void;
  /** Resolves when following ends: `stop()`, a final error, or too many empty attempts. */
  done: Promise<void>;
}

/** Errors after which reopening cannot help: the table is gone, the token may not see it, the request is wrong. */
export function retryable(err: unknown): boolean {
  const code = asConnectError(err).code;
  return [Code.Unavailable, Code.Unknown, Code.Internal, Code.DeadlineExceeded, Code.Aborted, Code.ResourceExhausted, Code.Canceled].includes(code);
}

/**
 * Follows a resumable server stream (`Watch`, `WatchTicket`, `WatchFriendsTable`):
 * `open(afterEventId)` starts it, `onItem` gets each message. When the stream ends or
 * breaks it is opened again after the last event id seen, after the server's
 * `retry-after-ms` hint when it sent one, else after 250 ms, 0.5 s, 1 s, 2 s, then
 * every 5 s; it stops for good on a final error (`onState("stopped", err)`), after
 * `maxEmptyAttempts` reopenings in a row that brought nothing, or on `stop()`.
 */
export function follow<T>(options: FollowOptions<T>): Follower {
  const abort = new AbortController();
  const backoff = options.backoffMs ?? [250, 500, 1000, 2000, 5000];
  const maxEmpty = options.maxEmptyAttempts ?? 10;
  const maxHint = options.maxHintMs ?? 60000;
  let after = options.afterEventId ?? 0n;
  let attempt = 0;
  const done = (async () => {
    while (!abort.signal.aborted) {
      let hint: number | undefined;
      try {
        for await (const item of options.open(after, abort.signal)) {
          if (attempt > 0 || after === 0n) options.onState?.("live");
          attempt = 0;
          const id = options.eventId(item);
          if (id !== null) after = id;
          options.onItem(item);
        }
      } catch (err) {
        if (abort.signal.aborted) break;
        if (!retryable(err)) {
          options.onState?.("stopped", err);
          return;
        }
        hint = retryAfterMs(err);
        if (hint !== undefined && hint > maxHint) {
          options.onState?.("stopped", err);
          return;
        }
      }
      if (abort.signal.aborted) break;
      attempt += 1;
      if (attempt > maxEmpty) {
        options.onState?.("stopped");
        return;
      }
      options.onState?.("reconnecting");
      const delay = Math.max(hint ?? 0, backoff[Math.min(attempt, backoff.length) - 1] ?? 1000);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        abort.signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
      });
    }
  })();
  return { stop: () => abort.abort(), done };
}
