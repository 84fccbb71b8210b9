// The Dou Dizhu table: the player's own hand (and nobody else's: the dealer never
// sends it while a deal runs), the other seats' card counts and last plays, bidding,
// the kitty, the multiplier, Hint / Play / Pass, auto-play, the result with every hand
// shown (摊牌) and the next-deal offer. Phones first: the hand and the action buttons sit
// in a bar kept at the bottom of the screen; the seats and the trick stay compact above.

import { equals } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { explain, requestId, untilSettled, type Api } from "./api.js";
import { openFeed } from "./feed.js";
import { S } from "./i18n/index.js";
import { displayName, isBot, standingLine } from "./names.js";
import { afterTable, friendsCode } from "./routes.js";
import { sound } from "./settings.js";
import { tournamentLink } from "./tournament-link.js";
import { clock, h, mount, num, signed } from "./ui.js";
import { GameType } from "./gen/gamehub/common/v1/common_pb.js";
import { cardWords, comboWords, highToLow, isWild, meantWords, playWords, rankWord, readingsOf, sameCards } from "./cards.js";
import { stableCode } from "./errors.js";
import {
  Actor,
  CallKind,
  CloseReason,
  Decision,
  Outcome,
  Phase,
  TableSchema,
  TableStatus,
  type Hint,
  type HintResponse,
  type Table,
  type TableEvent,
  type Turn,
  type WatchResponse,
} from "./gen/gamehub/doudizhu/v1/doudizhu_pb.js";

const SUITS: Record<string, string> = { S: "♠", H: "♥", C: "♣", D: "♦" };

export { cardWords, highToLow };

/**
 * A card face; `card` is card text such as "S3", "HT", "BJ" (小王), "RJ" (大王). A wild
 * card (癞子, `wildRank` its rank) carries a corner mark and says so to a screen reader.
 */
export function cardFace(card: string, extra: Record<string, string | EventListener> = {}, wildRank = ""): HTMLElement {
  const { class: more = "", ...rest } = extra as Record<string, string | EventListener>;
  if (card === "BJ" || card === "RJ") {
    const word = card === "RJ" ? S().doudizhu.bigJoker : S().doudizhu.smallJoker;
    return h(
      "div",
      { class: `card joker ${card === "RJ" ? "red" : "black"} ${more}`, "data-card": card, title: word, ...rest },
      h("span", { class: word.length > 2 ? "rank long" : "rank" }, word),
    );
  }
  const suit = card[0] ?? "";
  const rank = rankWord(card.slice(1));
  const red = suit === "H" || suit === "D";
  const wild = isWild(card, wildRank);
  return h(
    "div",
    {
      class: `card ${red ? "red" : "black"}${rank === "10" ? " ten" : ""}${wild ? " wild" : ""} ${more}`,
      "data-card": card,
      ...(wild ? { "data-wild": "true", title: `${cardWords(card)} · ${S().doudizhu.wildText}` } : {}),
      ...rest,
    },
    h("span", { class: "rank" }, rank),
    h("span", { class: "suit" }, SUITS[suit] ?? ""),
    wild ? h("span", { class: "wild-mark", "aria-hidden": "true" }, S().doudizhu.wildMark) : null,
    wild ? h("span", { class: "sr-only" }, S().doudizhu.wildText) : null,
  );
}

export interface DoudizhuView {
  stop: () => void;
}

export function doudizhuTable(api: Api, root: HTMLElement, tableId: string, spectator: boolean): DoudizhuView {
  const T = () => S().doudizhu;
  let table: Table | undefined;
  const selected = new Set<string>();
  /** Hint's choices this turn: the bot's suggestion first (null: it would pass), then the plays. */
  let hints: (Hint | null)[] | null = null;
  let hintIndex = -1;
  let hintTurnKey = "";
  /** Hint's answer, kept for the event it was asked at. */
  let hintAnswer: { key: string; answer: HintResponse } | null = null;
  /** The hint whose cards are selected (its reading is sent with them). */
  let picked: Hint | null = null;
  /** Selected cards that can be read more than one way, and the readings offered. */
  let readingChoice: { cards: string[]; readings: Hint[] } | null = null;
  let notice: { text: string; kind: "error" | "info" } | null = null;
  let busy = false;
  let log: string[] = [];
  let connection = "live";
  let timerEls: HTMLElement[] = [];
  let nextDealEl: HTMLElement | null = null;
  // What the sounds last saw (undefined: nothing yet, so the first drawing is silent).
  let soundTurnKey: string | undefined;
  let soundResultDeal: number | undefined;
  /** How the last deal the events told of ended (a close's words depend on it). */
  let lastOutcome: Outcome | undefined;

  const view = h("div", { class: "doudizhu-table", "data-table": tableId });
  mount(root, view);

  const me = () => (spectator || !table || table.viewerSeat < 0 ? undefined : table.viewerSeat);
  const myTurn = () => table !== undefined && me() !== undefined && table.status === TableStatus.DEALING && table.toAct === me();
  const nameOf = (seat: number) => {
    const s = table?.seats[seat];
    if (!s) return "?";
    const name = displayName(s.playerId, s.profile);
    return seat === me() ? `${name}${T().you}` : name;
  };
  /** A settled player by its id: its name at this table. */
  const nameOfId = (playerId: string) => {
    const s = table?.seats.find((x) => x.playerId === playerId);
    return s ? nameOf(s.seat) : playerId;
  };
  const req = () => ({ tableId, requestId: requestId() });

  /**
   * Runs an action; a refusal is shown once, beside the buttons, and changes nothing,
   * unless `refused` takes it over (returns true).
   */
  const act = async (what: () => Promise<{ table?: Table }>, refused?: (err: unknown) => Promise<boolean>) => {
    if (busy) return;
    busy = true;
    try {
      const answer = await what();
      notice = null;
      selected.clear();
      picked = null;
      readingChoice = null;
      // Action replies leave out `turns`; the next read brings them.
      feed.refresh();
      if (answer.table) answer.table.turns = table?.turns ?? [];
      feed.apply(answer.table);
    } catch (err) {
      if (refused && (await refused(err))) return;
      notice = { text: explain(err), kind: "error" };
      render();
    } finally {
      busy = false;
    }
  };

  /** Hint's answer for the table as it is now (asked once per event). */
  const hintsNow = async (): Promise<HintResponse> => {
    const t = table!;
    const key = `${t.dealNumber}/${t.lastEventId}`;
    if (!hintAnswer || hintAnswer.key !== key) hintAnswer = { key, answer: await api.doudizhu.hint({ tableId }) };
    return hintAnswer.answer;
  };

  /** A hint or a reading in words: its kind and ranks and, in a laizi deal, what the wilds stand for. */
  const hintWords = (play: Hint) => playWords(play.cards, play.combination, play.meant, table?.wildRank ?? "");

  /**
   * Hint (提示): the first press selects the platform bot's suggestion (it does not beat
   * its own partner or spend a bomb for nothing); when the bot would pass while
   * following, it selects nothing and says so (建议不出). Each further press selects the
   * next of the server's legal plays, smallest first, round and round; in a laizi deal
   * the same cards come once per reading, and the notice says which reading it is.
   */
  const hint = async () => {
    const t = table;
    if (!t) return;
    const key = `${t.dealNumber}/${t.lastEventId}`;
    try {
      if (!hints || hintTurnKey !== key) {
        const answer = await hintsNow();
        const suggestion = answer.suggestion;
        const list: (Hint | null)[] = [];
        if (suggestion) list.push(suggestion);
        else if (answer.canPass) list.push(null);
        const same = (a: Hint, b: Hint) => a.ranks === b.ranks && a.meant === b.meant;
        for (const play of answer.plays) if (!suggestion || !same(play, suggestion)) list.push(play);
        hints = list;
        hintTurnKey = key;
        hintIndex = -1;
      }
      readingChoice = null;
      if (hints.every((choice) => choice === null)) {
        selected.clear();
        picked = null;
        notice = { text: T().hintNothing, kind: "info" };
        render();
        return;
      }
      hintIndex = (hintIndex + 1) % hints.length;
      const choice = hints[hintIndex];
      selected.clear();
      picked = choice ?? null;
      if (choice) {
        for (const c of choice.cards) selected.add(c);
        notice = choice.meant ? { text: T().hintReading(hintWords(choice)), kind: "info" } : null;
      } else {
        notice = { text: T().hintPass, kind: "info" };
      }
      render();
    } catch (err) {
      notice = { text: explain(err), kind: "error" };
      render();
    }
  };

  /**
   * The readings Hint offers for `cards` when they hold a wild card (laizi); the player
   * chooses when there is more than one. Hint's plays are the server's: nothing here
   * decides what cards can make.
   */
  const readingsFor = async (cards: string[]): Promise<Hint[]> => {
    const wild = table?.wildRank ?? "";
    if (!cards.some((c) => isWild(c, wild))) return [];
    return readingsOf(cards, (await hintsNow()).plays);
  };

  const playCards = (cards: string[], meant: string) =>
    act(
      () => api.doudizhu.play({ ...req(), cards, meant }),
      // A play the server finds ambiguous (the readings were not known here): the chooser.
      async (err) => {
        if (!(err instanceof ConnectError) || stableCode(err.rawMessage) !== "ambiguous_reading") return false;
        hintAnswer = null;
        const readings = await readingsFor(cards).catch(() => []);
        if (readings.length < 2) return false;
        readingChoice = { cards, readings };
        notice = null;
        render();
        return true;
      },
    );

  /**
   * Play: the selected cards, with the reading the player picked by Hint; cards with a
   * wild card that Hint reads more than one way open the chooser first.
   */
  const play = async () => {
    const cards = [...selected];
    if (cards.length === 0 || busy) return;
    let meant = picked && sameCards(picked.cards, cards) ? picked.meant : "";
    if (!meant) {
      let readings: Hint[] = [];
      try {
        readings = await readingsFor(cards);
      } catch {
        // Without Hint's answer the server says whether the play needs a reading.
      }
      if (readings.length > 1) {
        readingChoice = { cards, readings };
        notice = null;
        render();
        return;
      }
      meant = readings[0]?.meant ?? "";
    }
    await playCards(cards, meant);
  };

  /** The reading chooser: each reading in words, and Cancel. */
  function chooser(choice: { cards: string[]; readings: Hint[] }) {
    return h(
      "div",
      { class: "readings", id: "readings", role: "group", "aria-label": T().chooseReading },
      h("div", { class: "label" }, T().chooseReading),
      // A long list (three wild cards and a joker read a dozen ways) scrolls; Cancel stays.
      h(
        "div",
        { class: "reading-list" },
        ...choice.readings.map((reading) =>
          h("button", { class: "primary", "data-meant": reading.meant, onclick: () => void playCards(choice.cards, reading.meant) }, hintWords(reading)),
        ),
      ),
      h(
        "button",
        {
          id: "readings-cancel",
          onclick: () => {
            readingChoice = null;
            render();
          },
        },
        T().cancel,
      ),
    );
  }

  const lastTurns = (t: Table): Map<number, Turn> => {
    // The latest play or pass of each seat in the current round (the last three turns).
    const last = new Map<number, Turn>();
    for (const turn of t.turns.slice(-3)) last.set(turn.seat, turn);
    return last;
  };

  const byWho = (by: Actor) => (by === Actor.AUTO_PLAY ? T().byAuto : by === Actor.TIMEOUT ? T().byTimeout : "");

  /** Mini card faces, high to low, the wild cards of this deal marked. */
  const miniCards = (t: Table, cards: readonly string[], attrs: Record<string, string> = {}) =>
    h("div", { class: "mini-cards", ...attrs }, ...highToLow(cards).map((c) => cardFace(c, {}, t.wildRank)));

  /** A play in words: its kind (a laizi bomb by its class) and what the wilds stood for. */
  const turnWords = (t: Table, turn: Turn) =>
    turn.meant ? playWords(turn.cards, turn.combination, turn.meant, t.wildRank) : comboWords(turn.combination);

  function playShown(t: Table, turn: Turn | undefined) {
    if (!turn) return h("div", { class: "played empty" });
    if (turn.cards.length === 0) return h("div", { class: "played pass", "data-pass": "true" }, T().pass, byWho(turn.by));
    return h(
      "div",
      { class: "played", ...(turn.meant ? { "data-meant": turn.meant } : {}) },
      miniCards(t, turn.cards),
      h("div", { class: "kind" }, turnWords(t, turn), byWho(turn.by)),
    );
  }

  /** What a seat said last while the landlord is chosen and in the doubling: a bid, a call or rob, a double. */
  function decisionShown(t: Table, seat: number) {
    if (t.phase === Phase.BIDDING) {
      const call = t.calls.filter((c) => c.seat === seat).at(-1);
      if (call) return h("div", { class: "played bid", "data-call": CallKind[call.call] }, T().callWords[CallKind[call.call]] ?? "", byWho(call.by));
      const bid = t.bids.filter((b) => b.seat === seat).at(-1);
      if (bid) return h("div", { class: "played bid" }, bid.points === 0 ? T().noBid : T().points(bid.points), byWho(bid.by));
      return null;
    }
    if (t.phase === Phase.DOUBLING || t.phase === Phase.SHOWING) {
      const double = t.doubles.find((d) => d.seat === seat);
      return double ? h("div", { class: "played bid", "data-double": double.double ? "true" : "false" }, double.double ? T().doubledWord : T().notDoubledWord, byWho(double.by)) : null;
    }
    return null;
  }

  const roleOf = (t: Table, seat: number) =>
    t.landlord < 0 ? "" : t.seats[seat]?.landlord || t.landlord === seat ? "landlord" : "farmer";

  function seatBox(t: Table, seat: number, position: string, last: Map<number, Turn>) {
    const s = t.seats[seat];
    if (!s) return null;
    const acting = t.status === TableStatus.DEALING && t.toAct === seat;
    const role = roleOf(t, seat);
    const timer = acting ? h("span", { class: "turn-timer" }) : null;
    if (timer) timerEls.push(timer);
    const between = t.status !== TableStatus.DEALING;
    const doubled = t.doubles.some((d) => d.seat === seat && d.double);
    const landlordShown = t.shown && role === "landlord";
    // 明牌: the landlord's cards face up at its seat, for every other seat and spectators.
    const shownHand = landlordShown && position !== "bottom" && t.status === TableStatus.DEALING && t.landlordHand.length > 0;
    return h(
      "div",
      {
        class: `seat ${position}${acting ? " acting" : ""}`,
        "data-seat": seat,
        "data-cards-left": s.cardsLeft,
        "data-role": role,
        "data-doubled": doubled ? "true" : "false",
      },
      h(
        "div",
        { class: "who" },
        h("div", { class: `avatar ${role}` }, role === "landlord" ? T().landlordShort : role === "farmer" ? T().farmerShort : "?"),
        h(
          "div",
          { class: "ident" },
          h("div", { class: "name", title: s.playerId }, nameOf(seat)),
          h("div", { class: "sub" }, [role === "landlord" ? T().landlord : role === "farmer" ? T().farmer : "", standingLine(s.profile)].filter(Boolean).join(" · ")),
        ),
        isBot(s.playerId, s.profile) ? h("span", { class: "badge bot" }, T().botBadge) : null,
        s.autoPlay ? h("span", { class: "badge auto" }, T().autoBadge) : null,
        doubled ? h("span", { class: "badge doubled" }, T().doubledBadge) : null,
        landlordShown ? h("span", { class: "badge shown" }, T().shownBadge) : null,
        s.left ? h("span", { class: "badge" }, T().leftBadge) : null,
        s.ready && between ? h("span", { class: "badge ready" }, T().readyBadge) : null,
        timer,
      ),
      position === "bottom"
        ? null
        : h(
            "div",
            { class: "backs", title: T().cardsLeft(s.cardsLeft) },
            ...(shownHand ? [] : Array.from({ length: Math.min(s.cardsLeft, 6) }, () => h("div", { class: "back" }))),
            h("span", { class: "count", "aria-label": T().cardsLeft(s.cardsLeft) }, String(s.cardsLeft)),
          ),
      shownHand
        ? h(
            "div",
            { class: "shown-hand", id: "shown-hand", "data-seat": seat, "aria-label": T().shownHand(nameOf(seat)), title: T().shownHand(nameOf(seat)) },
            miniCards(t, t.landlordHand),
          )
        : null,
      t.phase === Phase.PLAYING ? playShown(t, last.get(seat)) : decisionShown(t, seat),
    );
  }

  /** Why a table closed, in words (`outcome`: how its last deal ended). */
  const closeWords = (reason: CloseReason, note: string, outcome: Outcome | undefined) => {
    const why =
      reason === CloseReason.ESCAPE
        ? T().closeEscape
        : reason === CloseReason.LEFT
          ? T().closeLeft
          : reason === CloseReason.ABANDONED
            ? // The dealer closes a table as abandoned for two redeals in a row nobody bid in, too.
              outcome === Outcome.REDEAL ? T().closeNoBids : T().closeAbandoned
            : reason === CloseReason.OPERATOR
              ? T().closeOperator
              : T().closeOther;
    return note ? `${why} ${note}` : why;
  };
  const tableCloseWords = (t: Table) => closeWords(t.closeReason, t.closedNote, t.result?.outcome);

  function leaveButton(t: Table) {
    const closed = t.status === TableStatus.CLOSED;
    if (link && (closed || t.status === TableStatus.BETWEEN_DEALS)) {
      // A tournament's deal is played once at its table: after it, back to the
      // tournament (or on to the next deal's table), leaving this one.
      return h("button", { class: "primary", id: "back-to-tournament", onclick: () => link.back() }, S().tournaments.backToTournament);
    }
    const back = t.friendsTable && friendsCode() ? T().backToFriends : T().backToLobby;
    return h(
      "button",
      {
        id: "leave",
        class: closed ? "primary" : "",
        onclick: async () => {
          if (!closed) {
            if (t.status === TableStatus.DEALING && !confirm(T().confirmEscape)) return;
            if (t.status !== TableStatus.DEALING && t.friendsTable && !confirm(T().confirmFriendsSeat)) return;
            try {
              await api.doudizhu.leave(req());
            } catch (err) {
              notice = { text: explain(err), kind: "error" };
              render();
              return;
            }
          }
          location.hash = afterTable(tableId, t.friendsTable);
        },
      },
      closed ? back : T().leave,
    );
  }

  /**
   * What the seat to act must decide (Table.decision); from the phase for a server that
   * does not say (bidding or playing: the classic rule set's only decisions).
   */
  const decisionOf = (t: Table): Decision =>
    t.decision !== Decision.UNSPECIFIED
      ? t.decision
      : t.phase === Phase.BIDDING
        ? Decision.BID
        : t.phase === Phase.PLAYING
          ? Decision.PLAY
          : Decision.UNSPECIFIED;

  function controls(t: Table) {
    const list: (HTMLElement | null)[] = [];
    const mine = myTurn();
    const decision = mine && t.status === TableStatus.DEALING ? decisionOf(t) : Decision.UNSPECIFIED;
    /** A yes/no decision's two buttons: yes first, the primary one. */
    const yesNo = (name: string, yes: string, no: string, send: (yes: boolean) => Promise<{ table?: Table }>) =>
      list.push(
        h("button", { class: "primary", id: name, "data-decision": name, onclick: () => void act(() => send(true)) }, yes),
        h("button", { id: `no-${name}`, "data-decision": `no-${name}`, onclick: () => void act(() => send(false)) }, no),
      );
    switch (decision) {
      case Decision.BID: {
        const highest = Math.max(0, ...t.bids.map((b) => b.points));
        for (const points of [1, 2, 3]) {
          list.push(
            h(
              "button",
              { class: "primary", "data-bid": points, disabled: points <= highest, onclick: () => void act(() => api.doudizhu.bid({ ...req(), points })) },
              T().bidButton(points),
            ),
          );
        }
        list.push(h("button", { "data-bid": 0, onclick: () => void act(() => api.doudizhu.bid({ ...req(), points: 0 })) }, T().noBid));
        break;
      }
      case Decision.CALL:
        yesNo("call", T().call, T().noCall, (call) => api.doudizhu.call({ ...req(), call }));
        break;
      case Decision.ROB:
        yesNo("rob", T().rob, T().noRob, (rob) => api.doudizhu.rob({ ...req(), rob }));
        break;
      case Decision.DOUBLE:
        yesNo("double", T().double, T().noDouble, (double) => api.doudizhu.double({ ...req(), double }));
        break;
      case Decision.SHOW:
        yesNo("show", T().show, T().noShow, (show) => api.doudizhu.show({ ...req(), show }));
        break;
      case Decision.PLAY:
        list.push(
          t.mustLead ? null : h("button", { id: "pass", onclick: () => void act(() => api.doudizhu.pass(req())) }, T().pass),
          h("button", { id: "hint", onclick: () => void hint() }, T().hint),
          h("button", { id: "play", class: "primary", disabled: selected.size === 0, onclick: () => void play() }, T().play),
        );
        break;
      default:
        break;
    }
    if (t.status === TableStatus.DEALING) {
      const auto = t.seats[me()!]?.autoPlay ?? false;
      list.push(
        h(
          "button",
          { id: "auto", class: auto ? "toggled" : "", "aria-pressed": auto ? "true" : "false", onclick: () => void act(() => api.doudizhu.setAutoPlay({ ...req(), on: !auto })) },
          auto ? T().autoOn : T().autoOff,
        ),
      );
    }
    if (t.status === TableStatus.BETWEEN_DEALS && !link) {
      const ready = t.seats[me()!]?.ready ?? false;
      list.push(
        h(
          "button",
          {
            class: "primary",
            id: "next-deal",
            disabled: ready,
            onclick: () => {
              const next = req();
              void act(() => untilSettled(() => api.doudizhu.nextDeal(next)));
            },
          },
          ready ? T().waitingOthers : T().nextDeal,
        ),
      );
    }
    if (t.status !== TableStatus.DEALING || !mine) list.push(leaveButton(t));
    return h("div", { class: "buttons actions", id: "actions" }, ...list);
  }

  function statusLine(t: Table): string {
    if (t.status === TableStatus.CLOSED) return T().closedBecause(tableCloseWords(t));
    if (t.status === TableStatus.NEXT_DEAL_PENDING) return t.result?.outcome === Outcome.REDEAL ? T().redealing : T().nextDealSoon;
    if (t.status === TableStatus.BETWEEN_DEALS) return T().dealOver;
    const mine = myTurn();
    const who = nameOf(t.toAct);
    switch (decisionOf(t)) {
      case Decision.BID:
        return mine ? T().yourBid : T().bidding(who);
      case Decision.CALL:
        return mine ? T().yourCall : T().calling(who);
      case Decision.ROB:
        return mine ? T().yourRob : T().robbing(who);
      case Decision.DOUBLE:
        return mine ? T().yourDouble : T().doubling(who);
      case Decision.SHOW:
        return mine ? T().yourShow : T().showing(who);
      case Decision.PLAY:
        return mine ? (t.mustLead ? T().yourLead : T().yourFollow) : T().toPlay(who);
      default:
        return T().dealing;
    }
  }

  function showdown(t: Table) {
    const r = t.result;
    if (!r || r.handsLeft.length === 0) return null;
    return h(
      "div",
      { class: "showdown", id: "showdown" },
      h("div", { class: "label" }, T().showdown),
      ...t.seats.map((s) => {
        const cards = highToLow(r.handsLeft[s.seat]?.cards ?? []);
        return h(
          "div",
          { class: "showdown-seat", "data-seat": s.seat, "data-count": cards.length },
          h("div", { class: "name" }, nameOf(s.seat), s.landlord ? h("span", { class: "badge landlord" }, T().landlord) : null),
          cards.length
            ? h("div", { class: "mini-cards fit", style: `--gaps: ${Math.max(cards.length - 1, 1)}` }, ...cards.map((c) => cardFace(c, {}, t.wildRank)))
            : h("div", { class: "played-out" }, T().playedOut),
        );
      }),
    );
  }

  function result(t: Table) {
    const r = t.result;
    if (!r || t.phase !== Phase.FINISHED || r.outcome === Outcome.UNSPECIFIED) return null;
    const my = me();
    const landlordWon = r.outcome === Outcome.LANDLORD_WON;
    const iWon = my !== undefined && Number(r.points[my] ?? 0n) > 0;
    const headline =
      r.outcome === Outcome.REDEAL
        ? T().redealResult
        : r.outcome === Outcome.ESCAPED
          ? T().escapedResult(nameOf(r.seat))
          : my === undefined
            ? landlordWon ? T().landlordWins : T().farmersWin
            : iWon ? T().youWin : T().youLose;
    const mine = r.settlement.find((x) => x.seat === my);
    if (mine) sessionStorage.setItem("gamehub.lastResult", T().lastResult(headline, signed(mine.pointsDelta), signed(mine.silverDelta)));
    const laizi = (r.ruleSet || t.ruleSet) === "laizi";
    const doubledNames = t.seats.filter((s) => r.doubled[s.seat]).map((s) => nameOf(s.seat));
    const extras = [
      r.bid ? T().bid(r.bid) : "",
      r.robs ? T().robs(r.robs) : "",
      r.shown ? T().shownResult : "",
      T().multiplierTimes(String(r.multiplier)),
      // Doubles (加倍) are per seat, apart from the multiplier.
      r.doubled.length ? (doubledNames.length ? T().doubledBy(doubledNames) : T().noDoubles) : "",
      r.bombs ? (laizi ? T().hardBombs(r.bombs) : T().bombs(r.bombs)) : "",
      r.softBombs ? T().softBombs(r.softBombs) : "",
      r.wildBombs ? T().wildBombs(r.wildBombs) : "",
      r.rockets ? T().rocket : "",
      r.spring ? T().spring : "",
      r.antiSpring ? T().antiSpring : "",
    ].filter(Boolean);
    const free = Number(t.stakes?.silverPerPoint ?? 0n) === 0;
    return h(
      "div",
      {
        class: `result ${my === undefined || r.outcome === Outcome.REDEAL ? "" : iWon ? "win" : "loss"}`,
        id: "result",
        "data-outcome": Outcome[r.outcome],
        "data-spring": r.spring ? "true" : "false",
        "data-anti-spring": r.antiSpring ? "true" : "false",
      },
      h("div", { class: "headline" }, headline),
      h("div", { class: "description" }, extras.join(" · ")),
      r.outcome === Outcome.REDEAL
        ? null
        : h(
            "table",
            { class: "scores" },
            h("tr", {}, h("th", {}, T().player), h("th", {}, T().pointsHead), h("th", {}, T().silverHead)),
            ...t.seats.map((s) => {
              const settled = r.settlement.find((x) => x.seat === s.seat);
              return h(
                "tr",
                { "data-player": s.playerId },
                h("td", {}, nameOf(s.seat), s.landlord ? ` · ${T().landlord}` : "", r.doubled[s.seat] ? ` · ${T().doubledBadge}` : ""),
                h("td", {}, signed(r.points[s.seat] ?? 0n)),
                h("td", { class: "silver-delta", "data-settled": settled ? "true" : "false" }, settled ? signed(settled.silverDelta) : free ? T().freeRoom : T().settling),
              );
            }),
          ),
      showdown(t),
    );
  }

  function nextDealOffer(t: Table) {
    if (t.status !== TableStatus.BETWEEN_DEALS || Number(t.nextDealDeadlineUnixMs) <= 0 || link) return null;
    nextDealEl = h("div", { class: "next-deal-clock", id: "next-deal-clock" });
    return nextDealEl;
  }

  /** The player's own seat: status, the hand (kitty cards marked), notice and buttons. */
  function myBar(t: Table, my: number, last: Map<number, Turn>) {
    const hand = highToLow(t.hand);
    const kitty = t.landlord === my && t.status === TableStatus.DEALING ? new Set(t.kitty) : new Set<string>();
    return h(
      "div",
      { class: `me${myTurn() ? " my-turn" : ""}`, id: "me" },
      h(
        "div",
        { class: "me-head" },
        seatBox(t, my, "bottom", last),
        h("div", { class: "status", id: "status", "data-my-turn": myTurn() ? "true" : "false", "data-phase": Phase[t.phase], "data-decision": Decision[t.decision], "data-table-status": TableStatus[t.status] }, statusLine(t)),
      ),
      // Between deals the hand is shown with the others' (摊牌), beside the result.
      t.status !== TableStatus.DEALING
        ? null
        : h(
        "div",
        { class: "hand", id: "hand", "data-count": hand.length, style: `--gaps: ${Math.max(hand.length - 1, 1)}` },
        ...hand.map((card) => {
          const face = cardFace(
            card,
            {
              class: `${selected.has(card) ? "selected" : ""}${kitty.has(card) ? " from-kitty" : ""}`,
              ...(kitty.has(card) ? { "data-kitty": "true" } : {}),
              "aria-pressed": selected.has(card) ? "true" : "false",
              role: "button",
              onclick: () => {
                // Cards may be picked ahead of the turn, once the play has begun.
                if (t.status !== TableStatus.DEALING || t.phase !== Phase.PLAYING) return;
                if (selected.has(card)) selected.delete(card);
                else selected.add(card);
                if (notice?.kind === "info") notice = null;
                readingChoice = null;
                render();
              },
            },
            t.wildRank,
          );
          if (kitty.has(card)) face.append(h("span", { class: "kitty-mark", title: T().kitty }, T().kittyMark));
          return face;
        }),
      ),
      notice ? h("div", { class: `notice ${notice.kind}`, id: "notice", role: notice.kind === "error" ? "alert" : "status" }, notice.text) : null,
      readingChoice && myTurn() ? chooser(readingChoice) : null,
      nextDealOffer(t),
      controls(t),
    );
  }

  function render() {
    const t = table;
    if (!t) return;
    timerEls = [];
    nextDealEl = null;
    const my = me();
    // Seats in play order around the table: the next seat on the right, the one after on the left.
    const right = my === undefined ? 1 : (my + 1) % 3;
    const left = my === undefined ? 2 : (my + 2) % 3;
    const last = lastTurns(t);
    for (const c of [...selected]) if (!t.hand.includes(c)) selected.delete(c);
    if (!myTurn() || decisionOf(t) !== Decision.PLAY) readingChoice = null;
    const ruleSet = t.ruleSet || "classic";
    view.dataset.ruleSet = ruleSet;
    view.dataset.eventId = String(t.lastEventId);
    view.dataset.status = TableStatus[t.status];
    view.dataset.deal = String(t.dealNumber);
    playSounds(t);
    const closed = t.status === TableStatus.CLOSED;
    mount(
      view,
      h(
        "header",
        { class: "table-head" },
        h(
          "h2",
          {},
          T().title,
          h("span", { class: "badge rule-set", id: "rule-set", "data-rule-set": ruleSet }, T().ruleSets[ruleSet] ?? ruleSet),
          spectator ? h("span", { class: "badge" }, T().spectating) : null,
          t.friendsTable ? h("span", { class: "badge" }, T().friendsTable) : null,
        ),
        h(
          "div",
          { class: "sub" },
          [
            T().deal(t.dealNumber),
            T().base(String(t.stakes?.pointsBase ?? 1)),
            Number(t.stakes?.silverPerPoint ?? 0n) > 0 ? T().silverPerPoint(num(t.stakes!.silverPerPoint)) : T().freeRoom,
            T().perTurn(clock(Number(t.turnTimeMs))),
          ].join(" · "),
          h("span", { class: "table-id" }, ` · ${T().table(t.tableId)}`),
        ),
        link?.bar,
      ),
      closed ? h("div", { class: "closed-note", id: "closed", "data-close-reason": CloseReason[t.closeReason], role: "status" }, h("strong", {}, T().closedTitle), " ", tableCloseWords(t)) : null,
      h(
        "div",
        { class: "felt" },
        seatBox(t, left, "left", last),
        h(
          "div",
          { class: "center" },
          h(
            "div",
            { class: "table-info" },
            h(
              "div",
              { class: "kitty", id: "kitty" },
              h("div", { class: "label" }, T().kitty),
              t.kitty.length
                ? miniCards(t, t.kitty)
                : h("div", { class: "mini-cards" }, ...[0, 1, 2].map(() => h("div", { class: "back" }))),
            ),
            h(
              "div",
              { class: "multiplier", id: "multiplier", title: T().multiplier },
              h("div", { class: "label" }, T().multiplier),
              h("div", { class: "value" }, `×${t.multiplier}`),
              t.winningBid ? h("div", { class: "sub" }, T().bid(t.winningBid)) : t.robs ? h("div", { class: "sub" }, T().robsSub(t.robs)) : null,
            ),
            t.wildRank
              ? h(
                  "div",
                  { class: "wild-rank", id: "wild-rank", "data-rank": t.wildRank },
                  h("div", { class: "label" }, T().wildRank),
                  h("div", { class: "value" }, rankWord(t.wildRank), h("span", { class: "wild-mark", "aria-hidden": "true" }, T().wildMark)),
                )
              : null,
          ),
          t.trick && t.phase === Phase.PLAYING && t.trick.cards.length
            ? h(
                "div",
                { class: "trick", id: "trick" },
                h("div", { class: "label" }, T().toBeat(nameOf(t.trick.seat), turnWords(t, t.trick))),
                miniCards(t, t.trick.cards, t.trick.meant ? { "data-meant": t.trick.meant } : {}),
              )
            : null,
          my === undefined
            ? h("div", { class: "status", id: "status", "data-my-turn": "false", "data-phase": Phase[t.phase], "data-decision": Decision[t.decision], "data-table-status": TableStatus[t.status] }, statusLine(t))
            : null,
          result(t),
        ),
        seatBox(t, right, "right", last),
      ),
      my === undefined
        ? h(
            "div",
            { class: "me spectator" },
            seatBox(t, 0, "spectated", last),
            h("div", { class: "spectator-note" }, T().spectatorNote),
            h("div", { class: "buttons" }, h("a", { class: "button", href: "#/" }, T().backToLobby)),
          )
        : myBar(t, my, last),
      connection === "reconnecting" ? h("div", { class: "notice" }, T().reconnecting) : null,
      connection === "stopped" ? h("div", { class: "notice" }, T().stopped) : null,
      h("ol", { class: "log", id: "log" }, ...log.slice(-8).map((line) => h("li", {}, line))),
    );
    const logEl = view.querySelector("#log");
    if (logEl) logEl.scrollTop = logEl.scrollHeight;
    tick();
  }

  /** Your turn, and a deal's end (win or lose), as sounds; the first drawing is silent. */
  function playSounds(t: Table) {
    const turnKey = myTurn() ? `${t.dealNumber}/${t.phase}/${t.turns.length}/${t.bids.length}/${t.calls.length}/${t.doubles.length}` : "";
    if (soundTurnKey !== undefined && turnKey && turnKey !== soundTurnKey) sound("turn");
    soundTurnKey = turnKey;
    const r = t.result;
    const ended = t.phase === Phase.FINISHED && r && (r.outcome === Outcome.LANDLORD_WON || r.outcome === Outcome.FARMERS_WON || r.outcome === Outcome.ESCAPED);
    const my = me();
    if (ended && soundResultDeal !== undefined && soundResultDeal !== t.dealNumber && my !== undefined) {
      sound(Number(r.points[my] ?? 0n) > 0 ? "win" : "lose");
    }
    soundResultDeal = ended ? t.dealNumber : (soundResultDeal ?? 0);
  }

  function tick() {
    if (!table) return;
    const left = Number(table.turnDeadlineUnixMs) - Date.now();
    for (const el of timerEls) {
      el.textContent = Number(table.turnDeadlineUnixMs) > 0 ? clock(left) : "";
      el.classList.toggle("low", left < 5000);
    }
    if (nextDealEl) nextDealEl.textContent = T().nextDealClosesIn(clock(Number(table.nextDealDeadlineUnixMs) - Date.now()));
  }

  function describe(e: TableEvent): string | null {
    const k = e.kind;
    switch (k.case) {
      case "dealStarted":
        return T().logDealStarted(e.dealNumber, nameOf(k.value.firstBidder));
      case "bidMade":
        return T().logBid(nameOf(k.value.bid?.seat ?? -1), `${k.value.bid?.points ? T().points(k.value.bid.points) : T().noBid}${byWho(k.value.bid?.by ?? Actor.SEAT)}`);
      case "called":
        return `${T().logCalled(nameOf(k.value.seat), k.value.call)}${byWho(k.value.by)}`;
      case "robbed":
        return `${T().logRobbed(nameOf(k.value.seat), k.value.rob)}${byWho(k.value.by)}`;
      case "landlordChosen":
        // Called and robbed ("rob", "laizi"): no points were bid.
        return k.value.points > 0 ? T().logLandlord(nameOf(k.value.seat), k.value.points) : T().logLandlordRobbed(nameOf(k.value.seat), k.value.robs);
      case "wildRankDrawn":
        return T().logWildRank(rankWord(k.value.rank));
      case "doubled":
        return `${T().logDoubled(nameOf(k.value.seat), k.value.double)}${byWho(k.value.by)}`;
      case "showed":
        return `${T().logShowed(nameOf(k.value.seat), k.value.show)}${byWho(k.value.by)}`;
      case "played": {
        // A fresh play makes a sound; the events a resumed stream catches up on do not.
        if (Date.now() - Number(e.atUnixMs) < 5000) sound("card");
        const turn = k.value.turn;
        return T().logPlayed(nameOf(turn?.seat ?? -1), comboWords(turn?.combination), meantWords(turn?.cards ?? [], turn?.meant ?? "", table?.wildRank ?? ""), k.value.cardsLeft);
      }
      case "passed":
        return `${T().logPassed(nameOf(k.value.seat))}${byWho(k.value.by)}`;
      case "multiplierChanged":
        return T().logMultiplier(String(k.value.multiplier));
      case "autoPlayChanged":
        return T().logAuto(nameOf(k.value.seat), k.value.on);
      case "escaped":
        return T().logEscaped(nameOf(k.value.seat));
      case "dealEnded":
        lastOutcome = k.value.result?.outcome;
        return lastOutcome === Outcome.REDEAL ? T().redealResult : T().logDealEnded;
      case "readyForNextDeal":
        return T().logReady(nameOf(k.value.seat));
      case "dealSettled":
        window.dispatchEvent(new Event("gamehub:settled"));
        return T().logSettled(k.value.seats.map((s) => `${nameOfId(s.playerId)} ${signed(s.silverDelta)}`).join(", "));
      case "tableClosed":
        return T().logClosed(closeWords(k.value.reason, k.value.note, lastOutcome ?? table?.result?.outcome));
      default:
        return null;
    }
  }

  // A tournament's table (this tab was sent here from the tournament): the way back.
  const link = spectator ? null : tournamentLink(api, tableId, GameType.DOUDIZHU, () => api.doudizhu.leave(req()));

  const feed = openFeed<Table, WatchResponse>({
    tableId: spectator ? `${tableId}.spectator` : tableId,
    read: async () => (await api.doudizhu.getTable({ tableId, asSpectator: spectator })).table!,
    watch: (afterEventId, signal) => api.doudizhu.watch({ tableId, afterEventId, asSpectator: spectator }, { signal }),
    snapshot: (item) => (item.item.case === "snapshot" ? item.item.value : undefined),
    event: (item) => (item.item.case === "event" ? { id: item.item.value.eventId, line: describe(item.item.value) } : undefined),
    lastEventId: (t) => t.lastEventId,
    render: (t) => {
      // The same table again (an action's answer, then the read after it) is not drawn
      // again: a card being tapped stays the element it was.
      if (table && equals(TableSchema, table, t)) return;
      // A closed table stays on screen with its last result and the reason it closed;
      // the leave button goes back to the friends' table (or the lobby).
      table = t;
      render();
      link?.gameOver(t.status === TableStatus.BETWEEN_DEALS || t.status === TableStatus.CLOSED, t.status === TableStatus.CLOSED);
    },
    status: (lines, state) => {
      log = lines;
      const changed = connection !== state;
      connection = state;
      const logEl = view.querySelector("#log");
      if (logEl) mount(logEl, ...log.slice(-8).map((line) => h("li", {}, line)));
      if (changed) render();
    },
  });

  const timer = setInterval(tick, 250);
  return {
    stop: () => {
      clearInterval(timer);
      feed.stop();
      link?.stop();
    },
  };
}
