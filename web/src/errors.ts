// Errors in a player's words. The server's refusals start with stable codes for
// front-ends to localize on (docs/rules.md#stable-error-codes): `occupied: h8 is
// already occupied`, `not_eligible: daily_loss_cap: today's losses …`,
// `invalid_combination: those cards are not a combination`. A player never sees a code:
// only the sentence after it, or, for the friends' tables' codes, this file's own words
// (FRIENDS_WORDS), since those refusals are about a code or a table the player may not
// know by the server's wording.

import { Code, ConnectError } from "@connectrpc/connect";

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
 * An error as a player reads it: the server's sentence without its codes, whatever the
 * status; a plain explanation where the server's words are for operators (internal
 * errors, transport failures). Nothing else of an error (no stack, no internals) is shown.
 */
export function explain(err: unknown): string {
  if (err instanceof ConnectError) {
    const message = withoutCodes(err.rawMessage);
    switch (err.code) {
      case Code.Unauthenticated:
        return "Your sign-in has expired or is not valid. Sign in again.";
      case Code.Unavailable:
        return "The game server cannot be reached right now. Retrying may help.";
      case Code.DeadlineExceeded:
        return "The server took too long to answer. Try again.";
      case Code.ResourceExhausted:
        return message || "Too many requests; wait a moment.";
      case Code.Canceled:
        return "Cancelled.";
      case Code.Internal:
      case Code.Unknown:
        return "Something went wrong on the server. Try again in a moment.";
      default:
        return message || `The server refused (${Code[err.code]}).`;
    }
  }
  if (err instanceof TypeError) return "The game server cannot be reached right now.";
  return "Something went wrong. Reload the page to continue.";
}

/** The first stable code of a server message (`table_full: …` → "table_full"); "" when none. */
export function stableCode(message: string): string {
  return /^([a-z][a-z0-9]*(?:_[a-z0-9]+)*): /.exec(message)?.[1] ?? "";
}

/**
 * Friends' tables' refusals (docs/rules.md#stable-error-codes, "Friends' tables") in a
 * player's words. `live_ticket`, `already_seated` and `not_eligible` are not here: the
 * server's sentence says which ticket, table or reason, so it is shown as it is.
 */
export const FRIENDS_WORDS: Record<string, string> = {
  unknown_code: "No table has this code. Check it: 6 characters, e.g. K7QX2M.",
  table_closed: "This friends' table has closed; its code is not valid any more.",
  table_full: "Every seat at this table is taken. You can still watch its games.",
  seat_taken: "That seat has just been taken.",
  too_many_codes: "Too many codes that no table has were tried. Wait a while before trying another.",
  paid_friends_tables_off:
    "Friends' tables of rooms that play for silver are not open on this platform; open one in a free room.",
  game_in_progress: "Not while a game is being played: wait until it ends.",
  pair_unfinished: "Not between the two games of a pair: wait until both are played.",
  not_seated: "You do not sit at this table.",
  bots_free_rooms_only: "Bots sit only at friends' tables of free rooms.",
  not_owner: "Only the table's owner can do that.",
};

/** "in 3 minutes", "in 40 seconds": how long a `retry-after-ms` hint asks to wait. */
export function waitWords(ms: number): string {
  if (!(ms > 0)) return "";
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 90) return `in ${seconds} second${seconds === 1 ? "" : "s"}`;
  return `in ${Math.ceil(seconds / 60)} minutes`;
}

/** A refusal of a friends' table call, in a player's words (once: the caller shows it). */
export function explainFriends(err: unknown): string {
  if (err instanceof ConnectError) {
    const code = stableCode(err.rawMessage);
    const words = FRIENDS_WORDS[code];
    if (code === "too_many_codes") {
      const wait = waitWords(Number(err.metadata.get("retry-after-ms") ?? "0"));
      return wait ? `Too many codes that no table has were tried. Try again ${wait}.` : FRIENDS_WORDS.too_many_codes!;
    }
    if (words) return words;
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
  const sentence = withoutCodes(err.rawMessage).trim();
  return sentence === "" ? null : sentence.charAt(0).toUpperCase() + sentence.slice(1);
}
