// Retry hints honoured. The server answers RESOURCE_EXHAUSTED (the per-player rate
// limit, too many watchers, too many friends' codes tried) and UNAVAILABLE (a store
// failing over; `settling:` the last game not settled yet) with a `retry-after-ms`
// hint when it knows when trying again may succeed. Every mutating call carries a
// request id, so asking again never applies anything twice.

import { Code, ConnectError, createContextKey, createContextValues, type CallOptions } from "@connectrpc/connect";
import { asConnectError, describeError, retryAfterMs } from "./errors.js";

export interface RetryOptions {
  /** Retries of one call at most (not counting `settling`, below). Default 3. */
  maxRetries: number;
  /**
   * The longest hint waited for, in ms. A longer hint (e.g. `too_many_codes`: minutes)
   * is not waited out: the error is thrown at once and `describeError(err).retryAfterMs`
   * says how long to wait. Default 5000.
   */
  maxHintMs: number;
  /** How long `settling` answers (NextGame / NextDeal right after a game) are retried, in ms. Default 20000. */
  settlingForMs: number;
  /** Called before each wait: which method, which retry (1, 2, …), how long, and why. */
  onRetry?: (info: RetryInfo) => void;
}

export interface RetryInfo {
  /** `gamehub.gomoku.v1.GomokuService/PlaceStone`. */
  method: string;
  /** 1 for the first retry. */
  attempt: number;
  /** The wait before it, in ms: the server's hint when it sent one. */
  waitMs: number;
  /** The server's hint, when it sent one. */
  hintMs?: number | undefined;
  /** The error that is retried. */
  error: ConnectError;
}

export const DEFAULT_RETRY: Readonly<RetryOptions> = { maxRetries: 3, maxHintMs: 5000, settlingForMs: 20000 };

/** Per-call retry options (or `false`: no retry), carried in a call's context values. */
export const retryKey = createContextKey<Partial<RetryOptions> | false | undefined>(undefined, { description: "gamehub retry" });

/** Call options that change the retries of one call: `client.enqueue(req, retrying(false))`. */
export function retrying(options: Partial<RetryOptions> | false, call: CallOptions = {}): CallOptions {
  const values = call.contextValues ?? createContextValues();
  return { ...call, contextValues: values.set(retryKey, options) };
}

/**
 * How long to wait before retry `attempt` (1, 2, …) after `err`, or null: not worth
 * retrying (a refusal, a hint past `maxHintMs`, too many retries).
 */
export function retryDelay(err: unknown, attempt: number, options: RetryOptions, startedAt: number, now = Date.now()): number | null {
  const e = asConnectError(err);
  const hint = retryAfterMs(e);
  const settling = e.code === Code.Unavailable && describeError(e).code === "settling";
  if (settling) {
    if (now - startedAt >= options.settlingForMs) return null;
  } else if (attempt > options.maxRetries) {
    return null;
  }
  if (hint !== undefined) {
    if (e.code !== Code.ResourceExhausted && e.code !== Code.Unavailable) return null;
    return hint <= options.maxHintMs ? hint : null;
  }
  switch (e.code) {
    case Code.Unavailable: // no hint: the server could not be reached, or a dependency failed
      return Math.min(250 * 2 ** (attempt - 1), 2000);
    case Code.Aborted: // the table changed too fast: a lost race
      return 50 * attempt;
    default: // RESOURCE_EXHAUSTED without a hint (a full queue) and every refusal
      return null;
  }
}

/** Waits `ms`, or rejects with CANCELED when `signal` aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new ConnectError("cancelled", Code.Canceled));
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ConnectError("cancelled", Code.Canceled));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Runs `call` again while the server says to wait (`settling`: the ledger has not
 * settled the last game yet) for up to `forMs`. The clients of `connect` already do so
 * for each call; this helps where a call is made with other clients.
 */
export async function untilSettled<T>(call: () => Promise<T>, forMs = DEFAULT_RETRY.settlingForMs): Promise<T> {
  const startedAt = Date.now();
  for (;;) {
    try {
      return await call();
    } catch (err) {
      const e = asConnectError(err);
      if (e.code !== Code.Unavailable || describeError(e).code !== "settling" || Date.now() - startedAt >= forMs) throw err;
      await sleep(Math.min(Math.max(retryAfterMs(e) ?? 250, 50), 2000));
    }
  }
}
