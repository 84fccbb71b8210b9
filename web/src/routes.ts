// The page's addresses (the #fragment, so a reload comes back to the same screen) and
// what this tab remembers about where its player is between screens (sessionStorage).

import { GameType } from "./gen/gamehub/common/v1/common_pb.js";
import { S } from "./i18n/index.js";

export const LOBBY_ROUTE = "#/";

/** Where a seated player goes. */
export function tableRoute(game: GameType, tableId: string): string {
  return `#/${game === GameType.DOUDIZHU ? "doudizhu" : "gomoku"}/${tableId}`;
}

/** Any table, as a spectator. */
export function watchRoute(game: GameType, tableId: string): string {
  return `#/watch/${game === GameType.DOUDIZHU ? "doudizhu" : "gomoku"}/${tableId}`;
}

/** A friends' table's lobby (好友房), by its code. */
export function friendsRoute(code: string): string {
  return `#/friends/${code}`;
}

/** A room's live tables, to pick one to watch. */
export function tablesRoute(roomId: string): string {
  return `#/tables/${roomId}`;
}

/** The tournaments (比赛): open and running first. */
export const TOURNAMENTS_ROUTE = "#/tournaments";

/** A tournament's page. */
export function tournamentRoute(tournamentId: string): string {
  return `#/tournament/${tournamentId}`;
}

// The friends' table this tab's player sits at: a game screen goes back to it when its
// table closes (the friends' table is then in its lobby again).
const FRIENDS_KEY = "gamehub.friends";
// Game tables this tab saw close: the friends' table may still say PLAYING there for a
// moment after, and must not send the player back into a closed table.
const CLOSED_KEY = "gamehub.closedTables";
const CLOSED_KEPT = 20;

export function rememberFriends(code: string): void {
  sessionStorage.setItem(FRIENDS_KEY, code);
}

export function friendsCode(): string | null {
  return sessionStorage.getItem(FRIENDS_KEY);
}

export function forgetFriends(code: string): void {
  if (friendsCode() === code) sessionStorage.removeItem(FRIENDS_KEY);
}

function closedTables(): string[] {
  try {
    const ids = JSON.parse(sessionStorage.getItem(CLOSED_KEY) ?? "[]") as unknown;
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : [];
  } catch {
    return [];
  }
}

export function markClosed(tableId: string): void {
  const ids = closedTables().filter((id) => id !== tableId);
  ids.push(tableId);
  sessionStorage.setItem(CLOSED_KEY, JSON.stringify(ids.slice(-CLOSED_KEPT)));
}

export function isClosed(tableId: string): boolean {
  return closedTables().includes(tableId);
}

// The tournaments' tables this tab was sent to, each with its tournament: a game screen
// at one offers the way back to the tournament (and comes back there after the game),
// and the tournament's page opens a table by itself only the first time it sees it.
const TOURNAMENT_TABLES_KEY = "gamehub.tournamentTables";
const TOURNAMENT_TABLES_KEPT = 40;

function tournamentTables(): [string, string][] {
  try {
    const pairs = JSON.parse(sessionStorage.getItem(TOURNAMENT_TABLES_KEY) ?? "[]") as unknown;
    return Array.isArray(pairs)
      ? pairs.filter((p): p is [string, string] => Array.isArray(p) && typeof p[0] === "string" && typeof p[1] === "string")
      : [];
  } catch {
    return [];
  }
}

/** Remembers that `tableId` is a table of `tournamentId` this tab was sent to. */
export function rememberTournamentTable(tableId: string, tournamentId: string): void {
  const pairs = tournamentTables().filter(([table]) => table !== tableId);
  pairs.push([tableId, tournamentId]);
  sessionStorage.setItem(TOURNAMENT_TABLES_KEY, JSON.stringify(pairs.slice(-TOURNAMENT_TABLES_KEPT)));
}

/** The tournament whose table `tableId` is, if this tab was sent there; else null. */
export function tournamentOf(tableId: string): string | null {
  return tournamentTables().find(([table]) => table === tableId)?.[1] ?? null;
}

/**
 * Leaving a friends' table's game table also gives up the seat at the friends' table
 * (matchmaking frees the seats of those who left when the game table closes). In the
 * page's language; `relabelRoutes` renews it after a language switch.
 */
export let FRIENDS_SEAT_WARNING = S().common.seatWarning;

export function relabelRoutes(): void {
  FRIENDS_SEAT_WARNING = S().common.seatWarning;
}

/**
 * Where a player goes when it leaves a game table, or the table closes: back to the
 * tournament or the friends' table it was opened for, else the lobby.
 */
export function afterTable(tableId: string, friendsTable: boolean): string {
  markClosed(tableId);
  const tournament = tournamentOf(tableId);
  if (tournament) return tournamentRoute(tournament);
  const code = friendsTable ? friendsCode() : null;
  return code ? friendsRoute(code) : LOBBY_ROUTE;
}
