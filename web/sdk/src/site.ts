// What the web server beside the services says (`/config.json`), development tokens
// (`POST /dev-token`), reading a token's player, and request ids.

import type { Services } from "./client.js";

/** What `/config.json` says. */
export interface SiteConfig {
  /** Where each service answers gRPC-Web. */
  services: Services;
  /** Development: `POST /dev-token?player=NAME` mints a token (`devToken`). */
  devTokens: boolean;
  /** Production: where the operator's login system hands out the player's token. */
  tokenUrl: string | null;
}

function join(webUrl: string, path: string): string {
  return new URL(path, webUrl.endsWith("/") ? webUrl : `${webUrl}/`).toString();
}

/** `/config.json` of the web server at `webUrl` (e.g. `https://play.example.com/`). */
export async function loadSiteConfig(webUrl: string, fetchFn: typeof globalThis.fetch = globalThis.fetch): Promise<SiteConfig> {
  const response = await fetchFn(join(webUrl, "config.json"), { cache: "no-store" });
  if (!response.ok) throw new Error(`${join(webUrl, "config.json")}: HTTP ${response.status}`);
  const config = (await response.json()) as Partial<SiteConfig>;
  const s = config.services;
  if (!s || !s.matchmaking || !s.gomoku || !s.doudizhu || !s.ledger) throw new Error("config.json: services missing");
  return { services: s, devTokens: config.devTokens === true, tokenUrl: config.tokenUrl ?? null };
}

/**
 * Development only: a token for `player` from the web server at `webUrl`
 * (`POST /dev-token?player=NAME`; refused when the platform runs in production).
 */
export async function devToken(webUrl: string, player: string, fetchFn: typeof globalThis.fetch = globalThis.fetch): Promise<string> {
  const response = await fetchFn(join(webUrl, `dev-token?player=${encodeURIComponent(player)}`), { method: "POST" });
  let body: { token?: string; error?: string } = {};
  try {
    body = (await response.json()) as typeof body;
  } catch {
    // not JSON: said below
  }
  if (!response.ok || !body.token) throw new Error(`dev-token: ${body.error ?? `HTTP ${response.status}`}`);
  return body.token;
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** base64url → UTF-8 text, without atob (missing in some native runtimes). */
function decodeBase64Url(text: string): string {
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of text.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "")) {
    const v = B64.indexOf(ch);
    if (v < 0) throw new Error("not base64");
    value = (value << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((value >> bits) & 0xff);
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** The player a token names (its `sub`), or null when it is malformed or expired. */
export function playerOf(token: string, now = Date.now()): string | null {
  try {
    const claims = JSON.parse(decodeBase64Url(token.split(".")[1] ?? "")) as { sub?: unknown; exp?: unknown };
    if (typeof claims.sub !== "string") return null;
    if (typeof claims.exp === "number" && claims.exp * 1000 < now) return null;
    return claims.sub;
  } catch {
    return null;
  }
}

/**
 * A fresh id for a mutating call (Enqueue, PlaceStone, Play, …): a retry with the same
 * id is never applied twice, so make one per action, not per attempt.
 */
export function requestId(): string {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === "function") return c.randomUUID();
  // Pages over plain http on another host are not a secure context: no randomUUID.
  const bytes = new Uint8Array(16);
  if (c && typeof c.getRandomValues === "function") c.getRandomValues(bytes);
  else for (let i = 0; i < 16; i++) bytes[i] = Math.floor(Math.random() * 256);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
