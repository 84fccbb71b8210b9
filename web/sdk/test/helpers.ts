// What the SDK's tests share: the running platform (`gamehub serve`, given by
// GAMEHUB_WEB_URL and GAMEHUB_OPERATOR_TOKEN: the tests fail, never skip, without it),
// players with development tokens, and seating two of them at a Gomoku table.

import assert from "node:assert/strict";
import {
  connect,
  devToken,
  loadSiteConfig,
  requestId,
  type ConnectOptions,
  type Gamehub,
  type SiteConfig,
} from "../src/index.js";
import { Color, type Table } from "../src/gen/gamehub/gomoku/v1/gomoku_pb.js";
import { TicketState } from "../src/gen/gamehub/matchmaking/v1/matchmaking_pb.js";

function env(name: string, how: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set: the SDK's tests run against a running \`gamehub serve\` (${how})`);
  }
  return value;
}

/** Where `gamehub serve` serves the web client and /config.json, e.g. http://127.0.0.1:56080. */
export const WEB = env("GAMEHUB_WEB_URL", "its web server's address, e.g. http://127.0.0.1:56080");
export const OPERATOR_TOKEN = env("GAMEHUB_OPERATOR_TOKEN", "`gamehub token ci-operator --role operator`");

let config: Promise<SiteConfig> | null = null;

/** /config.json, read once; a platform that does not answer fails the test with a clear message. */
export function site(): Promise<SiteConfig> {
  config ??= loadSiteConfig(WEB).catch((err: unknown) => {
    throw new Error(`no gamehub platform answers at GAMEHUB_WEB_URL=${WEB} (start \`gamehub serve\`): ${String(err)}`);
  });
  return config;
}

/** A unique player id for this run. */
export function playerName(prefix: string): string {
  return `sdk-${prefix}-${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
}

/** A player connected with a development token (asked through the token provider). */
export async function player(prefix: string, options: Partial<ConnectOptions> = {}): Promise<Gamehub & { id: string }> {
  const id = playerName(prefix);
  const { services } = await site();
  const client = connect({ services, tokenProvider: () => devToken(WEB, id), ...options });
  return Object.assign(client, { id });
}

/** The operator's clients (grants). */
export async function operator(): Promise<Gamehub> {
  const { services } = await site();
  return connect({ services, token: OPERATOR_TOKEN });
}

/** Waits until `predicate` holds, polling; fails with `what` after `ms`. */
export async function until<T>(what: string, predicate: () => T | false | null | undefined | Promise<T | false | null | undefined>, ms = 20000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Both players queue for `room` and are seated at one table; returns [black, white, tableId]. */
export async function seatPair(a: Gamehub, b: Gamehub, room = "gomoku-free"): Promise<[Gamehub, Gamehub, string]> {
  const tickets: string[] = [];
  for (const p of [a, b]) {
    const { ticket } = await p.matchmaking.enqueue({ roomId: room, requestId: requestId() });
    assert.ok(ticket, "Enqueue answers a ticket");
    tickets.push(ticket.ticketId);
  }
  const seats = await Promise.all(
    [a, b].map((p, i) =>
      until(`ticket ${tickets[i]} seated`, async () => {
        const { ticket } = await p.matchmaking.getTicket({ ticketId: tickets[i]! });
        assert.ok(ticket && [TicketState.WAITING, TicketState.MATCHING, TicketState.SEATED].includes(ticket.state), `ticket ${TicketState[ticket?.state ?? 0]}`);
        return ticket.state === TicketState.SEATED && ticket.seat;
      }),
    ),
  );
  assert.equal(seats[0]!.tableId, seats[1]!.tableId, "both at one table");
  const tableId = seats[0]!.tableId;
  const { table } = await a.gomoku.getTable({ tableId });
  const black = table!.players.find((p) => p.color === Color.BLACK)!.seat === seats[0]!.seat ? a : b;
  return [black, black === a ? b : a, tableId];
}

/** `who` places a stone at `point` (a fresh request id) and gets the table after it. */
export async function place(who: Gamehub, tableId: string, point: string): Promise<Table> {
  const { table } = await who.gomoku.placeStone({ tableId, requestId: requestId(), point: { text: point } });
  assert.ok(table, "PlaceStone answers the table");
  return table;
}

/** Black's five on column h against white's stones on column a: black wins with h12. */
export const BLACK_FIVE = ["h8", "h9", "h10", "h11", "h12"];
export const WHITE_MOVES = ["a1", "a3", "a5", "a7"];
