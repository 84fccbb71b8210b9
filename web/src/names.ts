// How players and friends' table codes read on screen. Pure (no DOM, no calls), so the
// unit tests run it under node.
//
// Names (docs/rules.md#names): a player's display name (昵称) is only how it is shown;
// ids stay the key (two players may share a name). A player without a name is shown by
// its id; the platform's bots (ids `bot-…`) are marked as bots.
//
// Codes (docs/rules.md#friends-tables): 6 characters of `23456789ABCDEFGHJKMNPQRSTUVWXYZ`,
// read case-insensitively with spaces ignored.

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

/** What marks a bot beside its name. */
export const BOT_MARK = "bot 机器人";

/** One line for a player: "张三", "张三 (you)", "bot-7f3a (bot 机器人)". */
export function playerLine(playerId: string, profile: Shown | null | undefined, you: boolean): string {
  const name = displayName(playerId, profile);
  if (you) return `${name} (you)`;
  return isBot(playerId, profile) ? `${name} (${BOT_MARK})` : name;
}

/** A title and a Gomoku rank, as far as a profile has them: "超轻蝇量级 · 1k". */
export function standingLine(profile?: { title: string; rankName: string } | null): string {
  return [profile?.title ?? "", profile?.rankName ?? ""].filter((s) => s !== "").join(" · ");
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
  if (code === "") return "Type the table's code: 6 characters, e.g. K7QX2M.";
  if (isCode(code)) return null;
  if (code.length !== CODE_LENGTH) return `A code has 6 characters; "${code.slice(0, 12)}" has ${code.length}.`;
  return "A code has only the letters A–Z without I, L and O, and the digits 2–9.";
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
