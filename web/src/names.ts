// How players and friends' table codes read on screen. Pure (no DOM, no calls), so the
// unit tests run it under node.
//
// Names (docs/rules.md#names): a player's display name (昵称) is only how it is shown;
// ids stay the key (two players may share a name). A player without a name is shown by
// its id; the platform's bots (ids `bot-…`) are marked as bots.
//
// Codes (docs/rules.md#friends-tables): 6 characters of `23456789ABCDEFGHJKMNPQRSTUVWXYZ`,
// read case-insensitively with spaces ignored.
//
// Words come from the page's language (`S()`); `BOT_MARK` is a live binding that
// `relabel()` renews after a language switch.

import { S } from "./i18n/index.js";

/** The part of a PlayerProfile a name needs (any generated profile fits). */
export interface Shown {
  name: string;
  bot?: boolean;
}

/** The player as others see it: its name, else its id. */
export function displayName(playerId: string, profile?: Shown | null): string {
  const name = profile?.name ?? "";
  return name !== "" ? name : playerId;
}

/** A seat the platform's bot plays: said by the table's profile, or by the id. */
export function isBot(playerId: string, profile?: Shown | null): boolean {
  return profile?.bot === true || playerId.startsWith("bot-");
}

/** What marks a bot beside its name (the page's language; `relabel` renews it). */
export let BOT_MARK = S().common.bot;

/** Renews the words kept in bindings after the language changed. */
export function relabel(): void {
  BOT_MARK = S().common.bot;
}

/** One line for a player: "张三", "张三 (you)", "bot-7f3a (bot 机器人)". */
export function playerLine(playerId: string, profile: Shown | null | undefined, you: boolean): string {
  const name = displayName(playerId, profile);
  if (you) return `${name}${S().common.youSuffix}`;
  return isBot(playerId, profile) ? `${name} (${BOT_MARK})` : name;
}

/** A title and a Gomoku rank, as far as a profile has them: "超轻蝇量级 · 1级" ("· 1k" in English). */
export function standingLine(profile?: { title: string; rankName: string } | null): string {
  return [profile?.title ?? "", rankWords(profile?.rankName ?? "")].filter((s) => s !== "").join(" · ");
}

/**
 * A rank name as the server gives it ("无级别", "10k"…"1k", "1d"…"9d", "1p"…"9p",
 * docs/rules.md#rank-names) in the page's language: 1级, 业余2段, 专业3段 / 1k, 2d, 3p.
 */
export function rankWords(rankName: string): string {
  const words = S().common;
  if (rankName === "无级别" || rankName === "unranked") return words.rankUnranked;
  const m = /^(\d+)([kdp])$/.exec(rankName);
  return m ? words.rank(Number(m[1]), m[2] as "k" | "d" | "p") : rankName;
}

// ---- names (昵称), docs/rules.md#names ---------------------------------------------

/** What is wrong with a display name, in words; null when the ledger's SetName takes it. */
export function nameProblem(typed: string): string | null {
  const words = S().common;
  if (new TextEncoder().encode(typed).length > 64) return words.nameTooManyBytes;
  const name = typed.normalize("NFC");
  if (name === "") return words.nameEmpty;
  if (/^\s|\s$/u.test(name)) return words.nameEnds;
  // control characters, line/paragraph separators, invisible formatting (Cf) except ZWJ
  if (/[\p{Cc}\u2028\u2029]|(?!\u200d)\p{Cf}/u.test(name)) return words.nameInvisible;
  const length = [...name].length;
  if (length > 12) return words.nameTooLong(length);
  return null;
}

/** Whether a typed name can itself be a player id (ASCII letters, digits and `- _ . : @`). */
export function usableAsId(name: string): boolean {
  return /^[A-Za-z0-9_.:@-]{1,64}$/.test(name) && !name.startsWith("bot-");
}

/**
 * The player id a development sign-in uses for `name`: the name itself when it can be
 * one, else `p-` and a random base-36 id, remembered per name in `store` (so the same
 * name signs in as the same player on this browser).
 */
export function devPlayerId(name: string, store: Pick<Storage, "getItem" | "setItem">, random: () => number = Math.random): string {
  if (usableAsId(name)) return name;
  const key = "gamehub.devIds";
  let ids: Record<string, string> = {};
  try {
    ids = JSON.parse(store.getItem(key) ?? "{}") as Record<string, string>;
  } catch {
    ids = {};
  }
  const known = ids[name];
  if (typeof known === "string" && usableAsId(known)) return known;
  const id = `p-${Math.floor(random() * 36 ** 8).toString(36).padStart(8, "0")}`;
  ids[name] = id;
  try {
    store.setItem(key, JSON.stringify(ids));
  } catch {
    // private mode: the id lasts for this sign-in only
  }
  return id;
}

export const CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";
export const CODE_LENGTH = 6;

/** A code as typed ("k7qx 2m", " K7Q-X2M ") in the form the server issues ("K7QX2M"). */
export function normaliseCode(text: string): string {
  return text.replace(/[\s-]+/gu, "").toUpperCase();
}

/** Whether a normalised code can be one the server issues (checked before asking it). */
export function isCode(code: string): boolean {
  return code.length === CODE_LENGTH && [...code].every((c) => CODE_ALPHABET.includes(c));
}

/** What is wrong with a typed code, in words; null when it can be a code. */
export function codeProblem(text: string): string | null {
  const code = normaliseCode(text);
  const words = S().common;
  if (code === "") return words.codeEmpty;
  if (isCode(code)) return null;
  if (code.length !== CODE_LENGTH) return words.codeLength(code.slice(0, 12), code.length);
  return words.codeLetters;
}

/** The address that opens a friends' table: the page's own address with `?code=`. */
export function shareLink(pageUrl: string, code: string): string {
  const url = new URL(pageUrl);
  url.search = `?code=${encodeURIComponent(code)}`;
  url.hash = "";
  return url.toString();
}

/** The code a shared address carries (`?code=k7qx2m`), normalised; null without one. */
export function codeFromSearch(search: string): string | null {
  const raw = new URLSearchParams(search).get("code");
  if (raw === null) return null;
  const code = normaliseCode(raw);
  return isCode(code) ? code : null;
}
