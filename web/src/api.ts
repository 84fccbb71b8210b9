// Talking to gamehub from a browser: where the services are, the player's token,
// generated Connect-ES clients over gRPC-Web, and errors in a player's words.

import { type Client } from "@connectrpc/connect";
import * as sdk from "../sdk/src/index.js";
import type { MatchmakingService } from "./gen/gamehub/matchmaking/v1/matchmaking_pb.js";
import type { GomokuService } from "./gen/gamehub/gomoku/v1/gomoku_pb.js";
import type { DoudizhuService } from "./gen/gamehub/doudizhu/v1/doudizhu_pb.js";
import type { LedgerService } from "./gen/gamehub/ledger/v1/ledger_pb.js";
import type { TournamentService } from "./gen/gamehub/tournament/v1/tournament_pb.js";

export { explain } from "./errors.js";

/** What `/config.json` (served beside the page) says. */
export type SiteConfig = sdk.SiteConfig;

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
  /** Null when `/config.json` names no tournament service (an older server): no tournaments then. */
  tournaments: Client<typeof TournamentService> | null;
}

/** The page's own `/config.json` (the web server beside the services). */
export function loadConfig(): Promise<SiteConfig> {
  return sdk.loadSiteConfig(new URL(".", location.href).toString());
}

/**
 * The SDK's clients (web/sdk): every call carries the player's bearer token, as native
 * gRPC clients do, and waits out the server's retry hints (the rate limit, `settling`).
 */
export function connect(config: SiteConfig, session: Session): Api {
  const clients = sdk.connect({ services: config.services, token: session.token });
  return {
    player: session.player,
    matchmaking: clients.matchmaking,
    gomoku: clients.gomoku,
    doudizhu: clients.doudizhu,
    ledger: clients.ledger,
    tournaments: clients.tournaments ?? null,
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
  return sdk.playerOf(token);
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
  const session = sessionOf(await sdk.devToken(new URL(".", location.href).toString(), player));
  if (!session) throw new Error("dev-token: the token names no player");
  return remember(session);
}

// ---- calls (the SDK's) --------------------------------------------------------------

/** A fresh id for a mutating call: a retry with the same id never applies twice. */
export function requestId(): string {
  return sdk.requestId();
}

/**
 * NextGame / NextDeal right after a game: while the ledger is still settling that game
 * the server answers UNAVAILABLE `settling: …` with a `retry-after-ms` hint; asks again
 * after it (the same request), up to about 20 s, then lets the error through. (The
 * clients of `connect` already do so for each call.)
 */
export function untilSettled<T>(call: () => Promise<T>): Promise<T> {
  return sdk.untilSettled(call);
}

/** Whether a stream that ended with `err` is worth reconnecting. */
export function retryable(err: unknown): boolean {
  return sdk.retryable(err);
}

/**
 * Follows a resumable server stream: `open(afterEventId)` starts it, `onItem` gets each
 * message. When the stream ends or breaks it is opened again after the last event id
 * seen (after the server's retry hint, else 250 ms, 0.5 s, 1 s, 2 s, then every 5 s), so
 * nothing is missed; it stops for good on a final error (the table is gone, the token
 * may not see it), after ten attempts in a row that brought nothing (about 40 s), or on
 * `stop()`. (The SDK's `follow`.)
 */
export function follow<T>(options: {
  open: (afterEventId: bigint, signal: AbortSignal) => AsyncIterable<T>;
  eventId: (item: T) => bigint | null;
  onItem: (item: T) => void;
  onState?: (state: "live" | "reconnecting" | "stopped", err?: unknown) => void;
  afterEventId?: bigint;
}): { stop: () => void } {
  const follower = sdk.follow(options);
  return { stop: follower.stop };
}
