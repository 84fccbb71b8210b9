// Talking to gamehub from a browser: where the services are, the player's token,
// generated Connect-ES clients over gRPC-Web, and errors in a player's words.

import { Code, ConnectError, createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { MatchmakingService } from "./gen/gamehub/matchmaking/v1/matchmaking_pb.js";
import { GomokuService } from "./gen/gamehub/gomoku/v1/gomoku_pb.js";
import { DoudizhuService } from "./gen/gamehub/doudizhu/v1/doudizhu_pb.js";
import { LedgerService } from "./gen/gamehub/ledger/v1/ledger_pb.js";

export { explain } from "./errors.js";

/** What `/config.json` (served beside the page) says. */
export interface SiteConfig {
  services: { matchmaking: string; gomoku: string; doudizhu: string; ledger: string };
  /** Development: `POST /dev-token?player=NAME` mints a token. */
  devTokens: boolean;
  /** Production: where the operator's login system hands out the player's token. */
  tokenUrl: string | null;
}

export interface Session {
  player: string;
  token: string;
}

export interface Api {
  player: string;
  matchmaking: Client<typeof MatchmakingService>;
  gomoku: Client<typeof GomokuService>;
  doudizhu: Client<typeof DoudizhuService>;
  ledger: Client<typeof LedgerService>;
}

export async function loadConfig(): Promise<SiteConfig> {
  const response = await fetch("config.json", { cache: "no-store" });
  if (!response.ok) throw new Error(`config.json: HTTP ${response.status}`);
  return (await response.json()) as SiteConfig;
}

/** Every call carries the player's bearer token, as native gRPC clients do. */
export function connect(config: SiteConfig, session: Session): Api {
  const auth: Interceptor = (next) => (req) => {
    req.header.set("authorization", `Bearer ${session.token}`);
    return next(req);
  };
  const transport = (baseUrl: string) =>
    createGrpcWebTransport({ baseUrl, interceptors: [auth], useBinaryFormat: true });
  return {
    player: session.player,
    matchmaking: createClient(MatchmakingService, transport(config.services.matchmaking)),
    gomoku: createClient(GomokuService, transport(config.services.gomoku)),
    doudizhu: createClient(DoudizhuService, transport(config.services.doudizhu)),
    ledger: createClient(LedgerService, transport(config.services.ledger)),
  };
}

// ---- the token -------------------------------------------------------------------
//
// Where a page gets its token, first match wins (README, "The web client"):
//  1. `#token=JWT` in the address (the fragment never reaches a server's logs);
//  2. this tab's sessionStorage (a reload keeps the player; each tab is its own player);
//  3. `tokenUrl` from config.json: the operator's login system, with its cookies;
//  4. a parent window (an app or mini-game container embedding the page) answering
//     a `{type: "gamehub-token-request"}` message with `{type: "gamehub-token", token}`;
//  5. development only: a name typed in (or `?player=NAME`), minted by `POST /dev-token`.

const TOKEN_KEY = "gamehub.token";

export function playerOf(token: string): string | null {
  try {
    const payload = token.split(".")[1] ?? "";
    const json = atob(payload.replace(/-/g, "+").replace(/_/g, "/"));
    const claims = JSON.parse(json) as { sub?: unknown; exp?: unknown };
    if (typeof claims.sub !== "string") return null;
    if (typeof claims.exp === "number" && claims.exp * 1000 < Date.now()) return null;
    return claims.sub;
  } catch {
    return null;
  }
}

function sessionOf(token: string | null | undefined): Session | null {
  const player = token ? playerOf(token) : null;
  return token && player ? { player, token } : null;
}

export function remember(session: Session): Session {
  sessionStorage.setItem(TOKEN_KEY, session.token);
  return session;
}

export function forget(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

/** The token from the address, storage, the login system or the container; else null. */
export async function findSession(config: SiteConfig): Promise<Session | null> {
  const fromFragment = /^#token=([\w.-]+)/.exec(location.hash)?.[1];
  if (fromFragment) {
    history.replaceState(null, "", location.pathname + location.search + "#/");
    const session = sessionOf(fromFragment);
    if (session) return remember(session);
  }
  const stored = sessionOf(sessionStorage.getItem(TOKEN_KEY));
  if (stored) return stored;
  if (config.tokenUrl) {
    try {
      const response = await fetch(config.tokenUrl, { credentials: "include" });
      const body = (await response.json()) as { token?: string };
      const session = sessionOf(body.token);
      if (session) return remember(session);
    } catch {
      // fall through: the page then says it needs a sign-in
    }
  }
  if (window.parent !== window) {
    const session = sessionOf(await askParent());
    if (session) return remember(session);
  }
  return null;
}

function askParent(): Promise<string | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), 2000);
    window.addEventListener("message", function onMessage(event: MessageEvent) {
      const data = event.data as { type?: string; token?: string } | null;
      if (event.source === window.parent && data?.type === "gamehub-token") {
        clearTimeout(timer);
        window.removeEventListener("message", onMessage);
        resolve(data.token ?? null);
      }
    });
    window.parent.postMessage({ type: "gamehub-token-request" }, "*");
  });
}

/** Development: a token for `player` from the web server. */
export async function devSession(player: string): Promise<Session> {
  const response = await fetch(`dev-token?player=${encodeURIComponent(player)}`, { method: "POST" });
  const body = (await response.json()) as { token?: string; error?: string };
  const session = sessionOf(body.token);
  if (!response.ok || !session) throw new Error(body.error ?? `HTTP ${response.status}`);
  return remember(session);
}

// ---- calls -----------------------------------------------------------------------

/** A fresh id for a mutating call: a retry with the same id never applies twice. */
export function requestId(): string {
  return crypto.randomUUID();
}

/**
 * NextGame / NextDeal right after a game: while the ledger is still settling that game
 * the server answers UNAVAILABLE `settling: …` with a `retry-after-ms` hint; asks again
 * after it (the same request), up to about 20 s, then lets the error through.
 */
export async function untilSettled<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      const settling = err instanceof ConnectError && err.code === Code.Unavailable && err.rawMessage.startsWith("settling:");
      if (!settling || attempt >= 40) throw err;
      const hint = Number(err.metadata.get("retry-after-ms") ?? "250");
      await new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(hint, 50), 2000)));
    }
  }
}

/** Whether a stream that ended with `err` is worth reconnecting. */
export function retryable(err: unknown): boolean {
  if (!(err instanceof ConnectError)) return true;
  return [Code.Unavailable, Code.Unknown, Code.Internal, Code.DeadlineExceeded, Code.Aborted, Code.ResourceExhausted].includes(err.code);
}

/**
 * Follows a resumable server stream: `open(afterEventId)` starts it, `onItem` gets each
 * message. When the stream ends or breaks it is opened again after the last event id
 * seen (250 ms, 0.5 s, 1 s, 2 s, then every 5 s), so nothing is missed; it stops for
 * good on a final error (the table is gone, the token may not see it), after ten
 * attempts in a row that brought nothing (about 40 s), or on `stop()`.
 */
const MAX_EMPTY_ATTEMPTS = 10;

export function follow<T>(options: {
  open: (afterEventId: bigint, signal: AbortSignal) => AsyncIterable<T>;
  eventId: (item: T) => bigint | null;
  onItem: (item: T) => void;
  onState?: (state: "live" | "reconnecting" | "stopped", err?: unknown) => void;
  afterEventId?: bigint;
}): { stop: () => void } {
  const abort = new AbortController();
  let after = options.afterEventId ?? 0n;
  let attempt = 0;
  (async () => {
    while (!abort.signal.aborted) {
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
      }
      if (abort.signal.aborted) break;
      attempt += 1;
      if (attempt > MAX_EMPTY_ATTEMPTS) {
        options.onState?.("stopped");
        return;
      }
      options.onState?.("reconnecting");
      const delay = [250, 500, 1000, 2000][attempt - 1] ?? 5000;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  })();
  return { stop: () => abort.abort() };
}
