// Tournaments (比赛, docs/rules.md#tournaments): the list and a tournament's page.
//
// The list (ListTournaments): those open for registration and those running first, then
// the finished and cancelled ones, page by page; each says its game, room, format, entry
// fee, players of the most it takes, and its start time or "as soon as it is full".
//
// A tournament's page: GetTournament, then WatchTournament (the whole tournament again at
// every change, resumed after a dropped stream) until it has finished or was cancelled.
// It shows where the tournament is, Register / Unregister (a refusal once, beside the
// buttons, in words), the standings (Swiss: score, Buchholz, Sonneborn–Berger, W-D-L;
// elimination: chips, out after which round), every round's tables with their players
// and results, the prizes in percent (and who won them), the players and the settings.
// Players are shown by their names (the ledger's GetProfiles), never by id alone.
//
// When the player's table of a round comes (`your_table_id`, a table this tab has not
// been sent to yet), the page opens it: the game's own screen (gomoku.ts, doudizhu.ts),
// which leads back here after the game (tournament-link.ts).

import { follow, type Api } from "./api.js";
import { explain, explainTournament } from "./errors.js";
import { S, lang } from "./i18n/index.js";
import { roomName } from "./lobby.js";
import { BOT_MARK, displayName, isBot, standingLine } from "./names.js";
import { LOBBY_ROUTE, TOURNAMENTS_ROUTE, isClosed, rememberTournamentTable, tableRoute, tournamentOf, tournamentRoute, watchRoute } from "./routes.js";
import { sound } from "./settings.js";
import { forgetRegistered, rememberRegistered } from "./tournament-link.js";
import { h, mount, num, signed, toast } from "./ui.js";
import { GameType, type PlayerProfile } from "./gen/gamehub/common/v1/common_pb.js";
import {
  Format,
  GameOutcome,
  State,
  type Match,
  type Round,
  type Tournament,
  type TournamentSettings,
  type TournamentSummary,
} from "./gen/gamehub/tournament/v1/tournament_pb.js";

export interface TournamentsView {
  stop: () => void;
}

// ---- words shared by the list and the page ----------------------------------------------

/** A Unix ms time as a player reads it: "12/6 20:00" / "6/12, 20:00". */
export function when(ms: bigint): string {
  return new Date(Number(ms)).toLocaleString(lang() === "en" ? "en-GB" : "zh-CN", {
    month: "numeric",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
  });
}

const gameOf = (s: TournamentSettings | undefined) => s?.gameType ?? GameType.GOMOKU;

function gameWords(s: TournamentSettings | undefined): string {
  return gameOf(s) === GameType.DOUDIZHU ? S().common.doudizhu : S().common.gomoku;
}

/** Elimination rounds (Dou Dizhu), else Swiss; an unset format is the game's. */
export function isElimination(s: TournamentSettings | undefined): boolean {
  return s?.format === Format.ELIMINATION || (s?.format !== Format.SWISS && gameOf(s) === GameType.DOUDIZHU);
}

function formatWords(s: TournamentSettings | undefined): string {
  return isElimination(s) ? S().tournaments.elimination : S().tournaments.swiss;
}

function feeWords(s: TournamentSettings | undefined): string {
  const fee = s?.entryFeeSilver ?? 0n;
  return fee > 0n ? S().tournaments.feeSilver(num(fee)) : S().tournaments.free;
}

function startWords(s: TournamentSettings | undefined): string {
  const at = s?.startsAtUnixMs ?? 0n;
  return at > 0n ? when(at) : S().tournaments.whenFull;
}

function stateName(state: State): string {
  return State[state] ?? "UNSPECIFIED";
}

function stateBadge(state: State) {
  return h("span", { class: `badge tn-state ${stateName(state).toLowerCase()}`, "data-state": stateName(state) }, S().tournaments.states[stateName(state)] ?? "");
}

/** A share of the pool in basis points as a percent: 5000 → "50", 3333 → "33.33". */
export function percent(bp: number): string {
  return (bp / 100).toFixed(2).replace(/\.?0+$/, "");
}

/** A Swiss score, Buchholz or Sonneborn–Berger as read: 1, 1.5, 2.25. */
export function points(x: number): string {
  return String(Math.round(x * 100) / 100);
}

// ---- the list -------------------------------------------------------------------------

export function tournamentList(api: Api, root: HTMLElement): TournamentsView {
  const T = S().tournaments;
  const C = S().common;
  const client = api.tournaments;
  const body = h("div", { class: "tn-list-body" }, h("p", { class: "loading" }, C.loading));
  mount(
    root,
    h(
      "section",
      { class: "tn-list", id: "tournaments" },
      h("header", { class: "table-head" }, h("h2", {}, T.title), h("div", { class: "sub" }, T.listHint)),
      body,
    ),
  );
  if (!client) {
    mount(body, h("div", { class: "notice", role: "alert" }, T.unavailable), h("div", { class: "buttons" }, h("a", { class: "button", id: "back-to-lobby", href: LOBBY_ROUTE }, C.backToLobby)));
    return { stop: () => undefined };
  }
  let live: TournamentSummary[] = [];
  let ended: TournamentSummary[] = [];
  let endedToken = "";
  let pages = 1;
  let loaded = false;
  let problem = "";
  let stopped = false;

  const over = (t: TournamentSummary) => t.state === State.FINISHED || t.state === State.CANCELLED;

  function card(t: TournamentSummary) {
    const s = t.settings;
    const facts = [
      gameWords(s),
      roomName({ roomId: s?.roomId ?? "", displayName: s?.roomId ?? "" }),
      formatWords(s),
      feeWords(s),
      T.playersOf(t.players, s?.maxPlayers ?? 0),
      t.state === State.REGISTERING ? ((s?.startsAtUnixMs ?? 0n) > 0n ? T.startsAt(when(s!.startsAtUnixMs)) : T.whenFull) : null,
      t.state === State.RUNNING && t.roundsTotal > 0 ? T.roundOf(t.currentRound, t.roundsTotal) : null,
      over(t) && t.createdAtUnixMs > 0n ? T.createdOn(when(t.createdAtUnixMs)) : null,
    ];
    return h(
      "a",
      {
        class: `tn-card ${gameOf(s) === GameType.DOUDIZHU ? "doudizhu" : "gomoku"}`,
        href: tournamentRoute(t.tournamentId),
        "data-tournament": t.tournamentId,
        "data-state": stateName(t.state),
      },
      h("div", { class: "tn-card-head" }, h("h4", {}, s?.name ?? t.tournamentId), stateBadge(t.state)),
      h("div", { class: "facts" }, ...facts.map((f) => (f ? h("span", {}, f) : null))),
    );
  }

  function render() {
    if (stopped) return;
    if (!loaded) return;
    mount(
      body,
      problem ? h("div", { class: "notice", role: "alert" }, problem) : null,
      h("h3", {}, T.openNow),
      live.length ? h("div", { class: "tn-grid", id: "tournaments-live" }, ...live.map(card)) : h("p", { class: "sub", id: "tournaments-live" }, T.none),
      h("h3", {}, T.ended),
      ended.length ? h("div", { class: "tn-grid", id: "tournaments-ended" }, ...ended.map(card)) : h("p", { class: "sub", id: "tournaments-ended" }, T.noneEnded),
      h(
        "div",
        { class: "buttons" },
        endedToken ? h("button", { id: "more-tournaments", onclick: () => void more() }, T.more) : null,
        h("a", { class: "button", id: "back-to-lobby", href: LOBBY_ROUTE }, C.backToLobby),
      ),
    );
  }

  async function load() {
    try {
      const [registering, running, recent] = await Promise.all([
        client!.listTournaments({ state: State.REGISTERING, pageSize: 100 }),
        client!.listTournaments({ state: State.RUNNING, pageSize: 100 }),
        pages === 1 ? client!.listTournaments({ pageSize: 20 }) : null,
      ]);
      live = [...registering.tournaments, ...running.tournaments];
      if (recent) {
        ended = recent.tournaments.filter(over);
        endedToken = recent.nextPageToken;
      }
      problem = "";
    } catch (err) {
      problem = explain(err);
    }
    loaded = true;
    render();
  }

  async function more() {
    try {
      const page = await client!.listTournaments({ pageSize: 20, pageToken: endedToken });
      pages += 1;
      const seen = new Set(ended.map((t) => t.tournamentId));
      ended.push(...page.tournaments.filter((t) => over(t) && !seen.has(t.tournamentId)));
      endedToken = page.nextPageToken;
      problem = "";
    } catch (err) {
      problem = explain(err);
    }
    render();
  }

  void load();
  const refresh = setInterval(() => void load(), 10000);
  return {
    stop: () => {
      stopped = true;
      clearInterval(refresh);
    },
  };
}

// ---- a tournament's page ------------------------------------------------------------------

/**
 * Profiles read this session, by game and player: a page opened again (back from a
 * table) names its players at once. Names change rarely; each page still reads the
 * players it has not seen.
 */
const knownProfiles = new Map<string, PlayerProfile>();
const KNOWN_PROFILES_KEPT = 5000;

export function tournamentPage(api: Api, root: HTMLElement, id: string): TournamentsView {
  const T = S().tournaments;
  const C = S().common;
  const client = api.tournaments;
  let t: Tournament | undefined;
  /** The refusal or failure to show (once, beside the buttons); "" for none. */
  let notice = "";
  let busy = false;
  let connection: "live" | "reconnecting" | "stopped" = "live";
  let stream: { stop: () => void } | null = null;
  let stopped = false;
  /** Players' profiles by id (undefined: asked, none: shown by id). */
  const profiles = new Map<string, PlayerProfile | undefined>();
  let asking = false;

  const view = h("div", { class: "tn-page", "data-tournament": id }, h("p", { class: "loading" }, C.loading));
  mount(root, view);

  const ended = (x: Tournament | undefined) => x?.state === State.FINISHED || x?.state === State.CANCELLED;
  const registered = () => t?.players.some((p) => p.playerId === api.player) ?? false;
  const game = () => gameOf(t?.settings);
  const profileOf = (playerId: string) => profiles.get(playerId) ?? knownProfiles.get(`${game()}:${playerId}`);
  const nameOf = (playerId: string) => displayName(playerId, profileOf(playerId));

  /** A player's name, marked when it is the viewer (or a bot). */
  function who(playerId: string) {
    const profile = profileOf(playerId);
    return h(
      "span",
      { class: `tn-name${playerId === api.player ? " tn-me" : ""}`, title: playerId, "data-player": playerId },
      nameOf(playerId),
      playerId === api.player ? h("span", { class: "badge" }, C.you) : null,
      isBot(playerId, profile) ? h("span", { class: "badge bot" }, BOT_MARK) : null,
    );
  }

  /** Shows a newer tournament; the player's new table opens its game screen. */
  function show(next: Tournament | undefined) {
    if (!next || stopped) return;
    if (t && next.version < t.version) return;
    t = next;
    if (ended(t)) stream?.stop();
    // Followed from every page while the player is in it (tournament-link.ts).
    if (registered() && !ended(t)) rememberRegistered(id);
    else forgetRegistered(id);
    const table = t.yourTableId;
    if (table && t.state === State.RUNNING && !isClosed(table) && tournamentOf(table) === null) {
      rememberTournamentTable(table, id);
      sound("turn");
      toast(T.yourTable(t.currentRound), "info", true);
      location.hash = tableRoute(game(), table);
      return;
    }
    void names();
    render();
  }

  /** The profiles of every player the page names and has not asked for yet. */
  async function names() {
    if (!t || asking) return;
    const ids = new Set<string>([
      ...t.players.map((p) => p.playerId),
      ...t.rounds.flatMap((r) => [...r.matches.flatMap((m) => m.playerIds), r.byePlayerId]),
      ...t.standings.map((s) => s.playerId),
      ...t.prizes.map((p) => p.playerId),
    ]);
    const missing = [...ids].filter((p) => p !== "" && !profiles.has(p));
    if (missing.length === 0) return;
    asking = true;
    try {
      for (let i = 0; i < missing.length; i += 100) {
        const answer = await api.ledger.getProfiles({ playerIds: missing.slice(i, i + 100), gameType: game() });
        for (const p of answer.profiles) {
          profiles.set(p.playerId, p.profile);
          if (!p.profile) continue;
          if (knownProfiles.size >= KNOWN_PROFILES_KEPT) knownProfiles.clear();
          knownProfiles.set(`${game()}:${p.playerId}`, p.profile);
        }
      }
    } catch {
      // shown by id, as a player without a name is
    } finally {
      for (const p of missing) if (!profiles.has(p)) profiles.set(p, undefined);
      asking = false;
    }
    if (stopped) return;
    render();
    void names();
  }

  /** Register / Unregister: the answer shown at once, a refusal once, in words. */
  const act = async (what: () => Promise<{ tournament?: Tournament }>, done: (answer: unknown) => void) => {
    if (busy) return;
    busy = true;
    try {
      const answer = await what();
      notice = "";
      done(answer);
      // The entry fee moved: the header's silver again.
      window.dispatchEvent(new Event("gamehub:settled"));
      show(answer.tournament);
    } catch (err) {
      notice = explainTournament(err);
    } finally {
      busy = false;
      render();
    }
  };

  function statusLine(x: Tournament): string {
    const s = x.settings;
    const max = s?.maxPlayers ?? 0;
    switch (x.state) {
      case State.REGISTERING:
        return (s?.startsAtUnixMs ?? 0n) > 0n ? T.statusOpenAt(x.players.length, max, when(s!.startsAtUnixMs)) : T.statusOpenFull(x.players.length, max);
      case State.RUNNING:
        return x.currentRound > 0 ? T.statusRunning(x.currentRound, x.roundsTotal) : T.statusPairing;
      case State.FINISHED:
        return T.statusFinished;
      case State.CANCELLED:
        return T.statusCancelled(x.cancelReason || T.cancelledNoReason);
      default:
        return "";
    }
  }

  function buttons(x: Tournament) {
    const list: (HTMLElement | null)[] = [];
    const fee = x.settings?.entryFeeSilver ?? 0n;
    const mine = registered();
    if (x.state === State.REGISTERING && !mine) {
      if (x.players.length < (x.settings?.maxPlayers ?? 0)) {
        list.push(
          h(
            "button",
            { class: "primary", id: "register", onclick: () => void act(() => client!.register({ tournamentId: id }), () => toast(T.registeredToast, "info")) },
            fee > 0n ? T.registerFee(num(fee)) : T.register,
          ),
        );
      } else {
        list.push(h("span", { class: "question", id: "tn-full" }, T.isFull));
      }
    }
    if (x.state === State.REGISTERING && mine) {
      list.push(
        h(
          "button",
          {
            id: "unregister",
            onclick: () => {
              if (fee > 0n && !confirm(T.unregisterAsk)) return;
              void act(
                () => client!.unregister({ tournamentId: id }),
                (answer) => {
                  const refunded = (answer as { refundedSilver?: bigint }).refundedSilver ?? 0n;
                  toast(refunded > 0n ? T.unregisteredToast(num(refunded)) : T.unregisteredFree, "info");
                },
              );
            },
          },
          T.unregister,
        ),
      );
    }
    const table = x.yourTableId;
    if (table && x.state === State.RUNNING && !isClosed(table)) {
      list.push(
        h("a", { class: "button primary", id: "to-table", href: tableRoute(game(), table), onclick: () => rememberTournamentTable(table, id) }, T.toTable),
      );
    }
    list.push(h("a", { class: "button", id: "back-to-tournaments", href: TOURNAMENTS_ROUTE }, T.allTournaments));
    list.push(h("a", { class: "button", id: "back-to-lobby", href: LOBBY_ROUTE }, C.backToLobby));
    return h("div", { class: "buttons", id: "tn-actions" }, ...list);
  }

  function standings(x: Tournament) {
    if (x.standings.length === 0) return null;
    const elimination = isElimination(x.settings);
    const last = [...x.rounds].reverse().find((r) => r.finished)?.number ?? 0;
    const head = elimination
      ? h("tr", {}, h("th", {}, T.colPlace), h("th", {}, T.colPlayer), h("th", { class: "num" }, T.colChips), h("th", { class: "num" }, T.colOut))
      : h(
          "tr",
          {},
          h("th", {}, T.colPlace),
          h("th", {}, T.colPlayer),
          h("th", { class: "num", title: T.scoreTitle }, T.colScore),
          h("th", { class: "num", title: T.buchholzTitle }, T.colBuchholz),
          h("th", { class: "num", title: T.sbTitle }, T.colSb),
          h("th", { class: "num", title: T.wdlTitle }, T.colWdl),
        );
    const rows = x.standings.map((s) =>
      h(
        "tr",
        { "data-place": s.place, "data-player": s.playerId, class: `${s.playerId === api.player ? "tn-me" : ""}${s.place === 1 ? " first" : ""}`.trim() },
        h("td", { class: "place" }, `${s.place}`),
        h("td", { class: "name" }, who(s.playerId)),
        ...(elimination
          ? [
              h("td", { class: "num chips" }, num(s.chips)),
              h("td", { class: "num out" }, s.outAfterRound > 0 ? T.outShort(s.outAfterRound) : T.stillIn),
            ]
          : [
              h("td", { class: "num score" }, points(s.score)),
              h("td", { class: "num" }, points(s.buchholz)),
              h("td", { class: "num" }, points(s.sonnebornBerger)),
              h("td", { class: "num wdl" }, T.wdl(s.wins + s.byes, s.draws, s.losses)),
            ]),
      ),
    );
    return h(
      "section",
      { class: "tn-section", id: "standings-box" },
      h("h3", {}, T.standings, last > 0 && x.state !== State.FINISHED ? h("span", { class: "sub" }, ` · ${T.standingsAfter(last)}`) : null),
      h("div", { class: "tn-scroll" }, h("table", { class: "scores tn-standings", id: "standings", "data-format": elimination ? "elimination" : "swiss" }, head, ...rows)),
    );
  }

  function matchResult(x: Tournament, m: Match): string {
    if (isElimination(x.settings)) {
      const deals = x.settings?.dealsPerRound || 3;
      if (m.finished) return `${T.matchOver} · ${T.dealsPlayed(m.dealsPlayed)}`;
      return m.tableId ? `${T.playing} · ${T.dealsPlayed(m.dealsPlayed)} / ${deals}` : T.opening;
    }
    if (!m.finished) return m.tableId ? T.playing : T.opening;
    switch (m.outcome) {
      case GameOutcome.BLACK_WINS:
        return T.blackWins;
      case GameOutcome.WHITE_WINS:
        return T.whiteWins;
      case GameOutcome.DRAW:
        return T.draw;
      case GameOutcome.BOTH_LOSE:
        return T.bothLose;
      default:
        return T.matchOver;
    }
  }

  function matchRow(x: Tournament, r: Round, m: Match) {
    const elimination = isElimination(x.settings);
    const mine = m.playerIds.includes(api.player);
    const live = m.tableId !== "" && !m.finished && x.state === State.RUNNING && r.number === x.currentRound;
    const seats = m.playerIds.map((p, i) =>
      h(
        "span",
        { class: "tn-seat", "data-seat": i },
        elimination ? null : h("span", { class: `dot ${i === 0 ? "black" : "white"}`, "aria-hidden": "true" }),
        who(p),
        elimination && m.chipsWon[i] !== undefined ? h("span", { class: "sub chips-won" }, ` ${signed(m.chipsWon[i]!)}`) : null,
      ),
    );
    return h(
      "li",
      {
        class: `tn-match${mine ? " mine" : ""}`,
        "data-board": m.board,
        "data-table": m.tableId,
        "data-finished": m.finished ? "true" : "false",
        "data-outcome": elimination ? null : (GameOutcome[m.outcome] ?? ""),
      },
      h("span", { class: "tn-board" }, T.board(m.board)),
      h("span", { class: "tn-seats" }, ...(elimination ? seats : [seats[0] ?? null, h("span", { class: "sub versus" }, T.versus), seats[1] ?? null])),
      h("span", { class: "tn-result" }, matchResult(x, m)),
      live && !mine ? h("a", { class: "button watch", href: watchRoute(game(), m.tableId) }, T.watch) : null,
    );
  }

  function rounds(x: Tournament) {
    if (x.rounds.length === 0) return null;
    return h(
      "section",
      { class: "tn-section", id: "rounds" },
      h("h3", {}, T.roundsTitle),
      ...[...x.rounds].reverse().map((r) =>
        h(
          "div",
          { class: "tn-round", "data-round": r.number, "data-finished": r.finished ? "true" : "false" },
          h("h4", {}, T.roundN(r.number), h("span", { class: "sub" }, ` · ${r.finished ? T.roundDone : T.roundPlaying}`)),
          h(
            "ol",
            { class: "tn-matches" },
            ...r.matches.map((m) => matchRow(x, r, m)),
            r.byePlayerId ? h("li", { class: "tn-match bye", "data-bye": r.byePlayerId }, h("span", { class: "tn-seats" }, T.bye(nameOf(r.byePlayerId)))) : null,
          ),
        ),
      ),
    );
  }

  function prizes(x: Tournament) {
    const shares = x.settings?.prizeSharesBp.length ? x.settings.prizeSharesBp : [10000];
    const paid = new Map(x.prizes.map((p) => [p.place, p]));
    const free = (x.settings?.entryFeeSilver ?? 0n) === 0n && x.poolSilver === 0n;
    return h(
      "section",
      { class: "tn-section", id: "prizes-box" },
      h("h3", {}, T.prizesTitle),
      h(
        "table",
        { class: "scores tn-prizes", id: "prizes" },
        h("tr", {}, h("th", {}, T.colPlace), h("th", { class: "num" }, T.colShare), x.prizes.length ? h("th", {}, T.colPrize) : null),
        ...shares.map((bp, i) => {
          const prize = paid.get(i + 1);
          return h(
            "tr",
            { "data-place": i + 1 },
            h("td", { class: "place" }, `${i + 1}`),
            h("td", { class: "num share" }, T.share(percent(bp))),
            x.prizes.length ? h("td", {}, prize ? T.paid(nameOf(prize.playerId), num(prize.amountSilver)) : "") : null,
          );
        }),
      ),
      h("div", { class: "sub" }, x.settings?.prizeSharesBp.length ? null : `${T.winnerTakesAll} `, free ? T.freePool : T.poolLine(num(x.poolSilver))),
    );
  }

  function players(x: Tournament) {
    const elimination = isElimination(x.settings);
    const started = x.state !== State.REGISTERING;
    return h(
      "section",
      { class: "tn-section", id: "players-box" },
      h("h3", {}, T.playersTitle, h("span", { class: "sub" }, ` · ${T.playersOf(x.players.length, x.settings?.maxPlayers ?? 0)}`)),
      x.players.length === 0
        ? h("p", { class: "sub", id: "players" }, T.noPlayers)
        : h(
            "ol",
            { class: "tn-players", id: "players" },
            ...x.players.map((p, i) =>
              h(
                "li",
                { "data-player": p.playerId, class: p.playerId === api.player ? "tn-me" : "" },
                h("span", { class: "seat-number" }, `${p.seed || i + 1}`),
                h("span", { class: "tn-player" }, who(p.playerId), h("span", { class: "sub standing" }, standingLine(profileOf(p.playerId)))),
                elimination && started ? h("span", { class: "sub" }, T.chipsOf(num(p.chips))) : null,
                elimination && p.outAfterRound > 0 ? h("span", { class: "sub" }, T.outAfter(p.outAfterRound)) : null,
              ),
            ),
          ),
    );
  }

  function settings(x: Tournament) {
    const s = x.settings;
    const elimination = isElimination(s);
    const row = (label: string, value: string | null, key: string) => (value === null ? [] : [h("dt", {}, label), h("dd", { "data-setting": key }, value)]);
    return h(
      "section",
      { class: "tn-section", id: "settings" },
      h("h3", {}, T.settingsTitle),
      h(
        "dl",
        { class: "tn-settings" },
        ...row(T.game, gameWords(s), "game"),
        ...row(T.room, roomName({ roomId: s?.roomId ?? "", displayName: s?.roomId ?? "" }), "room"),
        ...row(T.format, formatWords(s), "format"),
        ...row(T.fee, feeWords(s), "fee"),
        ...row(T.players, T.playersRange(x.players.length, s?.minPlayers ?? 0, s?.maxPlayers ?? 0), "players"),
        ...row(T.start, x.startedAtUnixMs > 0n ? when(x.startedAtUnixMs) : startWords(s), "start"),
        ...row(T.rounds, elimination ? null : x.roundsTotal > 0 ? T.roundsN(x.roundsTotal) : s?.rounds ? T.roundsN(s.rounds) : T.roundsAuto, "rounds"),
        ...row(T.deals, elimination ? `${s?.dealsPerRound || 3}` : null, "deals"),
        ...row(T.chips, elimination ? num(s?.startingChips || 1000n) : null, "chips"),
        ...row(T.rated, s?.unrated ? T.unrated : T.ratedAsRoom, "rated"),
        ...row(T.createdAt, x.createdAtUnixMs > 0n ? when(x.createdAtUnixMs) : null, "created"),
        ...row(T.endedAt, x.endedAtUnixMs > 0n ? when(x.endedAtUnixMs) : null, "ended"),
      ),
      h("p", { class: "sub" }, elimination ? T.eliminationHint : T.swissHint),
    );
  }

  function render() {
    if (stopped) return;
    const x = t;
    if (!x) {
      mount(
        view,
        h("header", { class: "table-head" }, h("h2", {}, T.title)),
        notice ? h("div", { class: "notice", id: "notice", role: "alert" }, notice) : h("p", { class: "loading" }, C.loading),
        h(
          "div",
          { class: "buttons", id: "tn-actions" },
          h("a", { class: "button", id: "back-to-tournaments", href: TOURNAMENTS_ROUTE }, T.allTournaments),
          h("a", { class: "button", id: "back-to-lobby", href: LOBBY_ROUTE }, C.backToLobby),
        ),
      );
      return;
    }
    const s = x.settings;
    const mine = registered();
    view.dataset.state = stateName(x.state);
    view.dataset.version = String(x.version);
    mount(
      view,
      h(
        "header",
        { class: "table-head tn-head" },
        h("h2", { id: "tn-name" }, s?.name ?? id),
        h(
          "div",
          { class: "tn-badges" },
          stateBadge(x.state),
          h("span", { class: "badge" }, gameWords(s)),
          h("span", { class: "badge" }, formatWords(s)),
          h("span", { class: "badge" }, feeWords(s)),
        ),
        h("div", { class: "sub" }, `${roomName({ roomId: s?.roomId ?? "", displayName: s?.roomId ?? "" })} · ${T.playersOf(x.players.length, s?.maxPlayers ?? 0)}`),
      ),
      h("div", { class: "status", id: "tn-status", "data-state": stateName(x.state) }, statusLine(x)),
      mine && (x.state === State.REGISTERING || x.state === State.RUNNING)
        ? h("div", { class: "sub tn-registered", id: "tn-registered" }, x.state === State.REGISTERING ? T.registered : T.registeredPlaying)
        : null,
      notice ? h("div", { class: "notice", id: "notice", role: "alert" }, notice) : null,
      buttons(x),
      connection === "reconnecting" ? h("div", { class: "notice" }, T.reconnecting) : null,
      connection === "stopped" && !ended(x) ? h("div", { class: "notice" }, T.cannotFollow) : null,
      standings(x),
      rounds(x),
      prizes(x),
      players(x),
      settings(x),
    );
  }

  async function start() {
    if (!client) {
      notice = T.unavailable;
      render();
      return;
    }
    try {
      show((await client.getTournament({ tournamentId: id })).tournament);
    } catch (err) {
      notice = explainTournament(err);
      render();
      return;
    }
    if (stopped || ended(t)) return;
    stream = follow({
      open: (_after, signal) => client.watchTournament({ tournamentId: id }, { signal }),
      eventId: () => null,
      onItem: (item) => show(item.tournament),
      onState: (state, err) => {
        if (ended(t) || state === connection) return;
        connection = state;
        if (state === "stopped" && err) notice = explainTournament(err);
        render();
      },
    });
  }

  void start();
  return {
    stop: () => {
      stopped = true;
      stream?.stop();
    },
  };
}
