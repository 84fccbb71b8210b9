// Errors explained by code (docs/rules.md, "For front-end developers": errors and the
// stable error codes). The server's refusals start with stable codes a front-end
// localizes on, then a sentence for people:
//
//   FAILED_PRECONDITION  `not_your_turn: not your turn: seat 1 is to act`
//   FAILED_PRECONDITION  `not_eligible: daily_loss_cap: today's losses …` (a code, a reason)
//   INVALID_ARGUMENT     `point: coordinates (15, 3) are off the 15x15 board` (a field)
//   INVALID_ARGUMENT     `invalid_combination: those cards are not a combination` (Dou Dizhu)
//   RESOURCE_EXHAUSTED   `too_many_codes: …` with the `retry-after-ms` metadata
//
// `describeError` turns any error a call or stream throws into one plain object.

import { Code, ConnectError } from "@connectrpc/connect";

/** The metadata key of the server's retry hint, in milliseconds. */
export const RETRY_AFTER_MS = "retry-after-ms";

/**
 * The stable codes that INVALID_ARGUMENT messages start with instead of a field's name
 * (Dou Dizhu's refusals of a play's cards, its reading and bids). Every other INVALID_ARGUMENT
 * message starts with the refused field.
 */
export const INVALID_ARGUMENT_CODES: ReadonlySet<string> = new Set([
  "empty_play",
  "duplicate_card",
  "invalid_combination",
  "bid_out_of_range",
  // A laizi play whose cards read more than one way and say none, or say one they cannot make.
  "ambiguous_reading",
  "reading_not_possible",
]);

/** An error as a front-end handles it. */
export interface ErrorDescription {
  /** The gRPC status (`Code.FailedPrecondition`, …); `Code.Unknown` for a non-RPC error. */
  grpcCode: Code;
  /** The status in snake_case: `failed_precondition`, `resource_exhausted`, … */
  status: string;
  /**
   * The stable code to localize on: the server's first code (`not_your_turn`,
   * `unknown_code`, `not_eligible`, `settling`, …); when the message carries none (a
   * refused field, a transport failure, an internal error), the status in snake_case
   * (`invalid_argument`, `unavailable`, `internal`, …).
   */
  code: string;
  /** Every leading code of the message, in order (`["not_eligible", "daily_loss_cap"]`). */
  codes: string[];
  /** `not_eligible`'s reason (`insufficient_balance`, `daily_win_cap`, `daily_loss_cap`). */
  reason?: string;
  /** The server's sentence without its codes (a refused field's name kept in words where the sentence needs it). */
  message: string;
  /** INVALID_ARGUMENT: the request field refused (`point`, `room_id`, `name`, …). */
  field?: string;
  /** The server's hint: how long to wait before trying again, in ms. */
  retryAfterMs?: number;
  /** The message exactly as the server sent it. */
  raw: string;
}

const CODE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/** The leading `snake_case: ` codes of a message and the sentence after them. */
export function splitCodes(message: string): { codes: string[]; sentence: string } {
  const codes: string[] = [];
  let rest = message;
  for (;;) {
    const colon = rest.indexOf(": ");
    if (colon <= 0 || !CODE.test(rest.slice(0, colon))) break;
    codes.push(rest.slice(0, colon));
    rest = rest.slice(colon + 2);
  }
  return { codes, sentence: rest };
}

/** The status of a gRPC code in snake_case (`Code.NotFound` → `not_found`). */
export function statusName(code: Code): string {
  return (Code[code] ?? "unknown").replace(/[A-Z]/g, (c, i: number) => (i ? "_" : "") + c.toLowerCase());
}

/** The server's retry hint of an error, in ms; undefined when it sent none. */
export function retryAfterMs(err: unknown): number | undefined {
  if (!(err instanceof ConnectError)) return undefined;
  const value = err.metadata.get(RETRY_AFTER_MS);
  if (value === null) return undefined;
  const ms = Number(value);
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/** Any error thrown by a call or a stream as a `ConnectError` (a failed fetch reads as UNAVAILABLE). */
export function asConnectError(err: unknown): ConnectError {
  if (err instanceof ConnectError) return err;
  // fetch rejects with a TypeError when the server cannot be reached.
  if (err instanceof TypeError) return new ConnectError(`the server cannot be reached: ${err.message}`, Code.Unavailable, undefined, undefined, err);
  return ConnectError.from(err);
}

/** An error explained by code; see `ErrorDescription`. */
export function describeError(err: unknown): ErrorDescription {
  const e = asConnectError(err);
  const raw = e.rawMessage;
  const status = statusName(e.code);
  let { codes, sentence } = splitCodes(raw);
  let field: string | undefined;
  if (e.code === Code.InvalidArgument && codes.length > 0 && !INVALID_ARGUMENT_CODES.has(codes[0]!)) {
    field = codes[0];
    codes = [];
    // "room_id: is required": the sentence needs the field's name.
    if (/^(is|are|must|may|cannot|has|needs) /.test(sentence)) sentence = `${field!.replace(/_/g, " ")} ${sentence}`;
  }
  const description: ErrorDescription = {
    grpcCode: e.code,
    status,
    code: codes[0] ?? status,
    codes,
    message: sentence,
    raw,
  };
  if (codes[0] === "not_eligible" && codes[1]) description.reason = codes[1];
  if (field !== undefined) description.field = field;
  const hint = retryAfterMs(e);
  if (hint !== undefined) description.retryAfterMs = hint;
  return description;
}
