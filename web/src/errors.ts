// Errors in a player's words. The server's refusals start with stable codes for
// front-ends to localize on (docs/rules.md#stable-error-codes): `occupied: h8 is
// already occupied`, `not_eligible: daily_loss_cap: today's losses …`,
// `invalid_combination: those cards are not a combination`. A player never sees a code:
// only the sentence after it.

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
