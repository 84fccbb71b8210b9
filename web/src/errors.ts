// Errors in a player's words, in the page's language. The server's refusals start with
// stable codes for front-ends to localize on (docs/rules.md#stable-error-codes):
// `occupied: h8 is already occupied`, `not_eligible: daily_loss_cap: today's losses …`,
// `invalid_combination: those cards are not a combination`. A player never sees a code:
// in English the sentence after it; in Chinese the client's words for the code
// (`S().errors.codes`); for the friends' tables' codes always the client's own words
// (`friendsWords()`), since those refusals are about a code or a table the player may
// not know by the server's wording. A malformed field's name is never shown in Chinese.

import { Code, ConnectError } from "@connectrpc/connect";
import { lang, S } from "./i18n/index.js";

/**
 * The sentence of a server message without its leading codes: every leading
 * `snake_case: ` is dropped (a refusal may carry two, `not_eligible: daily_win_cap: …`).
 */
export function withoutCodes(message: string): string {
  const codes = /^(?:[a-z][a-z0-9]*(?:_[a-z0-9]+)*: )+/.exec(message)?.[0] ?? "";
  const sentence = message.slice(codes.length);
  // A malformed field's message names the field, then says what is wrong with it
  // ("room_id: is required"): keep the field, in words, or the sentence says nothing.
  if (/^(is|are|must|may|cannot|has|needs) /.test(sentence)) {
    const field = codes.split(": ").filter(Boolean).pop() ?? "";
    return `${field.replace(/_/g, " ")} ${sentence}`;
  }
  return sentence;
}

/**
 * An error as a player reads it, in the page's language: the server's sentence without
 * its codes (English) or, in Chinese, the client's words for its stable code; a plain
 * explanation where the server's words are for operators (internal errors, transport
 * failures). A malformed field is never named to a Chinese reader (its words are the
 * server's English). Nothing else of an error (no stack, no internals) is shown.
 */
export function explain(err: unknown): string {
  const words = S().errors;
  if (err instanceof ConnectError) {
    const message = withoutCodes(err.rawMessage);
    switch (err.code) {
      case Code.Unauthenticated:
        return words.unauthenticated;
      case Code.Unavailable:
        return words.unavailable;
      case Code.DeadlineExceeded:
        return words.deadline;
      case Code.Canceled:
        return words.cancelled;
      case Code.Internal:
      case Code.Unknown:
        return words.internal;
      default: {
        const local = localWords(err.rawMessage);
        if (local) return local;
        if (err.code === Code.ResourceExhausted) return (lang() === "en" && message) || words.tooManyRequests;
        if (lang() !== "en") return err.code === Code.InvalidArgument ? words.badRequest : words.refused;
        return message || words.refused;
      }
    }
  }
  if (err instanceof TypeError) return words.unreachable;
  return words.unknown;
}

/**
 * The client's own words for a coded refusal when the page is not in English (the
 * server's sentences are): the eligibility reason after `not_eligible`, else the first
 * code; null when the page is in English or the code has no words here.
 */
function localWords(message: string): string | null {
  if (lang() === "en") return null;
  const codes = S().errors.codes;
  const first = stableCode(message);
  if (first === "not_eligible") {
    const reason = stableCode(message.slice(first.length + 2));
    return codes[reason] ?? null;
  }
  if (first === "forbidden") {
    // "forbidden: g8 is forbidden for black: double three" → the point and the rule.
    const found = /^forbidden: ([a-o]\d{1,2}) is forbidden for black: (.+)$/.exec(message);
    const kind = found ? S().errors.forbiddenKinds[found[2]!] : undefined;
    if (found && kind) return S().errors.forbiddenAt(found[1]!.toUpperCase(), kind);
  }
  return codes[first] ?? null;
}

/** The first stable code of a server message (`table_full: …` → "table_full"); "" when none. */
export function stableCode(message: string): string {
  return /^([a-z][a-z0-9]*(?:_[a-z0-9]+)*): /.exec(message)?.[1] ?? "";
}

/**
 * Friends' tables' refusals (docs/rules.md#stable-error-codes, "Friends' tables") in a
 * player's words, in the page's language. `live_ticket`, `already_seated` and
 * `not_eligible` are not here: `explain` says them.
 */
export function friendsWords(): Record<string, string> {
  return S().errors.friends;
}

/** "in 3 minutes" / "3 分钟后": how long a `retry-after-ms` hint asks to wait. */
export function waitWords(ms: number): string {
  if (!(ms > 0)) return "";
  const words = S().errors;
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 90) return words.inSeconds(seconds);
  return words.inMinutes(Math.ceil(seconds / 60));
}

/** A refusal of a friends' table call, in a player's words (once: the caller shows it). */
export function explainFriends(err: unknown): string {
  if (err instanceof ConnectError) {
    const code = stableCode(err.rawMessage);
    const words = friendsWords();
    if (code === "too_many_codes") {
      const wait = waitWords(Number(err.metadata.get("retry-after-ms") ?? "0"));
      return wait ? S().errors.tooManyCodesWait(wait) : words.too_many_codes!;
    }
    const said = words[code];
    if (said) return said;
  }
  return explain(err);
}

/**
 * A refusal of one field of a form (`name: must not end with a space`), to show beside
 * the field: the sentence after the field's name, which stays in words where the
 * sentence needs it ("Name is required"), as `withoutCodes` keeps it; null when the
 * error is about something else (then `explain` says it).
 */
export function fieldRefusal(err: unknown, field: string): string | null {
  if (!(err instanceof ConnectError) || err.code !== Code.InvalidArgument) return null;
  if (!err.rawMessage.startsWith(`${field}: `)) return null;
  if (lang() !== "en") return S().errors.badRequest;
  const sentence = withoutCodes(err.rawMessage).trim();
  return sentence === "" ? null : sentence.charAt(0).toUpperCase() + sentence.slice(1);
}

/**
 * A refusal of a tournament call (Register, Unregister), in a player's words: as
 * `explain` says any refusal (`full`, `not_registering` by their codes), except a balance
 * below the entry fee, which the general words put in terms of a room.
 */
export function explainTournament(err: unknown): string {
  if (err instanceof ConnectError && lang() !== "en") {
    const first = stableCode(err.rawMessage);
    const reason = first === "not_eligible" ? stableCode(err.rawMessage.slice(first.length + 2)) : first;
    const said = S().errors.tournament[reason];
    if (said) return said;
  }
  return explain(err);
}
