// A game table of a tournament (比赛), seen from its game screen (gomoku.ts, doudizhu.ts):
// a bar with the tournament's name and round and the way back to it. The screen follows
// the tournament meanwhile (WatchTournament, resumed after a dropped stream), so it knows
// when the player's next table has come (`your_table_id`, e.g. a Dou Dizhu elimination
// round's next deal). Once the game here is over, the player leaves the table (between
// games that is no escape) and goes on after a few seconds, or at once with the button:
// to the next table when it has come, else back to the tournament's page, which opens
// the next table by itself when it comes.
//
// A table is a tournament's when this tab was sent to it from the tournament
// (`rememberTournamentTable`); the game services do not mark tournament tables.
//
// Below, `followRegistered`: the tournaments the player registered for in this tab,
// followed from every other page, so that a round's table opens wherever the player waits.

import { follow, type Api } from "./api.js";
import { S } from "./i18n/index.js";
import { isClosed, markClosed, rememberTournamentTable, tableRoute, tournamentOf, tournamentRoute } from "./routes.js";
import { h, mount, toast } from "./ui.js";
import { GameType } from "./gen/gamehub/common/v1/common_pb.js";
import { State, type Tournament } from "./gen/gamehub/tournament/v1/tournament_pb.js";

/** How long a finished game stays on screen before the player goes on. */
export const RETURN_MS = 8000;

export interface TournamentLink {
  /** The bar for the game screen's heading (the same element at every redraw). */
  bar: HTMLElement;
  /**
   * What the game screen says after each redraw: whether the game here is over for the
   * tournament, and whether the table has closed (nothing to leave then). The first
   * `over` starts the countdown.
   */
  gameOver: (over: boolean, closed: boolean) => void;
  /** Goes on now: leaves the table, then to the next table or the tournament's page. */
  back: () => void;
  stop: () => void;
}

/**
 * The link from table `tableId` back to its tournament, or null when this tab was not
 * sent there from a tournament (or the server has no tournaments). `leave` leaves the
 * table at its game's service.
 */
export function tournamentLink(api: Api, tableId: string, game: GameType, leave: () => Promise<unknown>): TournamentLink | null {
  const found = tournamentOf(tableId);
  const client = api.tournaments;
  if (!found || !client) return null;
  const id: string = found;
  const T = () => S().tournaments;
  let tournament: Tournament | undefined;
  let next: string | null = null;
  let overSince = 0;
  let closed = false;
  let going = false;
  let stopped = false;
  let connection: "live" | "reconnecting" | "stopped" = "live";

  const bar = h("div", { class: "tn-bar", id: "tournament-bar", "data-tournament": id });

  function draw() {
    if (stopped) return;
    const t = tournament;
    const left = overSince ? Math.max(0, Math.ceil((overSince + RETURN_MS - Date.now()) / 1000)) : 0;
    mount(
      bar,
      h(
        "span",
        { class: "tn-bar-line" },
        h("span", { class: "badge tn-badge" }, T().badge),
        h("span", { class: "tn-bar-name" }, t ? T().barLine(t.settings?.name ?? "", t.currentRound) : ""),
      ),
      next ? h("span", { class: "tn-next", id: "next-table-ready" }, T().nextTableReady) : null,
      overSince ? h("span", { class: "sub tn-back-in", id: "back-in" }, next ? T().nextIn(left) : T().backIn(left)) : null,
      connection === "reconnecting" ? h("span", { class: "sub" }, T().reconnecting) : null,
      next
        ? h("button", { class: "primary", id: "next-table", onclick: () => back() }, T().nextTable)
        : h(
            "a",
            {
              class: "button",
              id: "to-tournament",
              href: tournamentRoute(id),
              onclick: (e: Event) => {
                // During the game the seat stays (the tournament's page leads back to
                // it); after it, going back also leaves the table.
                if (!overSince) return;
                e.preventDefault();
                back();
              },
            },
            T().backToTournament,
          ),
    );
  }

  function back() {
    if (going || stopped) return;
    going = true;
    const go = () => {
      markClosed(tableId);
      if (next) {
        rememberTournamentTable(next, id);
        location.hash = tableRoute(game, next);
      } else {
        location.hash = tournamentRoute(id);
      }
    };
    // Between games leaving is no escape; a refusal (the table closed meanwhile) changes nothing.
    if (closed) go();
    else leave().then(go, go);
  }

  function onTournament(t: Tournament | undefined) {
    if (!t || stopped || (tournament && t.version < tournament.version)) return;
    tournament = t;
    const table = t.yourTableId;
    next = table && table !== tableId && !isClosed(table) ? table : null;
    if (t.state === State.FINISHED || t.state === State.CANCELLED) stream.stop();
    draw();
  }

  const stream = follow({
    open: (_after, signal) => client.watchTournament({ tournamentId: id }, { signal }),
    eventId: () => null,
    onItem: (item) => onTournament(item.tournament),
    onState: (state) => {
      if (state === connection) return;
      connection = state;
      draw();
    },
  });

  const timer = setInterval(() => {
    if (!overSince) return;
    if (Date.now() >= overSince + RETURN_MS) back();
    else draw();
  }, 500);

  draw();
  return {
    bar,
    gameOver: (over, isClosedNow) => {
      closed = isClosedNow;
      if (over && !overSince) {
        overSince = Date.now();
        draw();
      }
    },
    back,
    stop: () => {
      stopped = true;
      clearInterval(timer);
      stream.stop();
    },
  };
}

// ---- the tournaments the player registered for, followed from every page ---------------

// The tournaments this tab registered its player for: followed from any page (the lobby,
// another tournament's page) so that a round's table opens by itself wherever the player
// waits, as on the tournament's own page; not from a game table (that game goes on).
const REGISTERED_KEY = "gamehub.tournaments.registered";

function registered(): string[] {
  try {
    const ids = JSON.parse(sessionStorage.getItem(REGISTERED_KEY) ?? "[]") as unknown;
    return Array.isArray(ids) ? ids.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}

/** The player is registered for `tournamentId` (or plays in it): follow it from every page. */
export function rememberRegistered(tournamentId: string): void {
  if (registered().includes(tournamentId)) return;
  const ids = registered();
  ids.push(tournamentId);
  sessionStorage.setItem(REGISTERED_KEY, JSON.stringify(ids.slice(-20)));
}

/** Not any more (unregistered, or the tournament is over). */
export function forgetRegistered(tournamentId: string): void {
  sessionStorage.setItem(REGISTERED_KEY, JSON.stringify(registered().filter((x) => x !== tournamentId)));
}

/**
 * Follows every tournament `rememberRegistered` named; `sync()` (on every page change)
 * starts and stops followers to match. When one brings the player a table this tab has
 * not been sent to, and the player is not at a game table, the page goes there.
 */
export function followRegistered(api: Api): { sync: () => void } {
  const client = api.tournaments;
  const followers = new Map<string, { stop: () => void }>();
  const T = () => S().tournaments;

  function onTournament(id: string, t: Tournament | undefined) {
    if (!t) return;
    const over = t.state === State.FINISHED || t.state === State.CANCELLED;
    if (over || !t.players.some((p) => p.playerId === api.player)) {
      forgetRegistered(id);
      followers.get(id)?.stop();
      followers.delete(id);
      return;
    }
    const table = t.yourTableId;
    const at = location.hash;
    const busy = at.startsWith("#/gomoku/") || at.startsWith("#/doudizhu/") || at === tournamentRoute(id);
    if (!table || t.state !== State.RUNNING || busy || isClosed(table) || tournamentOf(table) !== null) return;
    rememberTournamentTable(table, id);
    toast(T().yourTable(t.currentRound), "info", true);
    location.hash = tableRoute(t.settings?.gameType ?? GameType.GOMOKU, table);
  }

  function sync() {
    if (!client) return;
    const wanted = new Set(registered());
    for (const [id, follower] of followers) {
      if (!wanted.has(id)) {
        follower.stop();
        followers.delete(id);
      }
    }
    for (const id of wanted) {
      if (followers.has(id)) continue;
      followers.set(
        id,
        follow({
          open: (_after, signal) => client.watchTournament({ tournamentId: id }, { signal }),
          eventId: () => null,
          onItem: (item) => onTournament(id, item.tournament),
          onState: (state) => {
            // A tournament that cannot be followed (gone) is forgotten.
            if (state === "stopped") {
              forgetRegistered(id);
              followers.delete(id);
            }
          },
        }),
      );
    }
  }

  return { sync };
}
