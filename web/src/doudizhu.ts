// The Dou Dizhu table: the player's own hand (and nobody else's: the dealer never
// sends it), the other seats' card counts and last plays, bidding, the kitty, the
// multiplier, Hint / Play / Pass, auto-play and the result.

import { explain, requestId, untilSettled, type Api } from "./api.js";
import { openFeed } from "./feed.js";
import { BOT_MARK, displayName, isBot, standingLine } from "./names.js";
import { FRIENDS_SEAT_WARNING, LOBBY_ROUTE, afterTable, friendsCode } from "./routes.js";
import { clock, h, mount, num, signed, toast } from "./ui.js";
import {
  Actor,
  Kind,
  Outcome,
  Phase,
  TableStatus,
  type Hint,
  type Table,
  type TableEvent,
  type Turn,
  type WatchResponse,
} from "./gen/gamehub/doudizhu/v1/doudizhu_pb.js";

const SUITS: Record<string, string> = { S: "♠", H: "♥", C: "♣", D: "♦" };

const KINDS: Record<Kind, string> = {
  [Kind.UNSPECIFIED]: "pass",
  [Kind.SINGLE]: "single 单牌",
  [Kind.PAIR]: "pair 对子",
  [Kind.TRIPLE]: "triple 三张",
  [Kind.TRIPLE_WITH_SINGLE]: "triple with one 三带一",
  [Kind.TRIPLE_WITH_PAIR]: "triple with a pair 三带一对",
  [Kind.STRAIGHT]: "straight 顺子",
  [Kind.PAIR_STRAIGHT]: "pair straight 连对",
  [Kind.TRIPLE_STRAIGHT]: "triple straight 三顺",
  [Kind.AIRPLANE_WITH_SINGLES]: "airplane 飞机带单",
  [Kind.AIRPLANE_WITH_PAIRS]: "airplane 飞机带对",
  [Kind.FOUR_WITH_TWO_SINGLES]: "four with two 四带二",
  [Kind.FOUR_WITH_TWO_PAIRS]: "four with two pairs 四带两对",
  [Kind.BOMB]: "bomb 炸弹",
  [Kind.ROCKET]: "rocket 王炸",
};

/** A card face; `card` is card text such as "S3", "HT", "BJ" (small joker), "RJ". */
export function cardFace(card: string, extra: Record<string, string | EventListener> = {}): HTMLElement {
  if (card === "BJ" || card === "RJ") {
    return h(
      "div",
      { class: `card joker ${card === "RJ" ? "red" : "black"}`, "data-card": card, ...extra },
      h("span", { class: "rank" }, "JOKER"),
      h("span", { class: "suit" }, card === "RJ" ? "大王" : "小王"),
    );
  }
  const suit = card[0] ?? "";
  const rank = card.slice(1) === "T" ? "10" : card.slice(1);
  const red = suit === "H" || suit === "D";
  return h(
    "div",
    { class: `card ${red ? "red" : "black"}`, "data-card": card, ...extra },
    h("span", { class: "rank" }, rank),
    h("span", { class: "suit" }, SUITS[suit] ?? ""),
  );
}

export interface DoudizhuView {
  stop: () => void;
}

export function doudizhuTable(api: Api, root: HTMLElement, tableId: string, spectator: boolean): DoudizhuView {
  let table: Table | undefined;
  const selected = new Set<string>();
  let hints: Hint[] | null = null;
  let hintIndex = -1;
  let hintTurnKey = "";
  let notice = "";
  let busy = false;
  let log: string[] = [];
  let connection = "live";
  let timerEl: HTMLElement | null = null;

  const view = h("div", { class: "doudizhu-table", "data-table": tableId });
  mount(root, view);

  const me = () => (spectator || !table || table.viewerSeat < 0 ? undefined : table.viewerSeat);
  const myTurn = () => table !== undefined && me() !== undefined && table.toAct === me();
  const nameOf = (seat: number) => {
    const s = table?.seats[seat];
    if (!s) return "?";
    const name = displayName(s.playerId, s.profile);
    return seat === me() ? `${name} (you)` : name;
  };
  /** A settled player by its id: its name at this table. */
  const nameOfId = (playerId: string) => {
    const s = table?.seats.find((x) => x.playerId === playerId);
    return s ? nameOf(s.seat) : playerId;
  };
  const req = () => ({ tableId, requestId: requestId() });

  const act = async (what: () => Promise<{ table?: Table }>) => {
    if (busy) return;
    busy = true;
    try {
      const answer = await what();
      notice = "";
      selected.clear();
      // Action replies leave out `turns`; the next read brings them.
      feed.refresh();
      if (answer.table) answer.table.turns = table?.turns ?? [];
      feed.apply(answer.table);
    } catch (err) {
      notice = explain(err);
      toast(notice);
      render();
    } finally {
      busy = false;
    }
  };

  /** Hint: the server's legal plays, smallest first; each press selects the next. */
  const hint = async () => {
    const key = `${table?.dealNumber}/${table?.turns.length}/${table?.lastEventId}`;
    try {
      if (!hints || hintTurnKey !== key) {
        hints = (await api.doudizhu.hint({ tableId })).plays;
        hintTurnKey = key;
        hintIndex = -1;
      }
      if (hints.length === 0) {
        notice = "Nothing in your hand beats that play: pass.";
        render();
        return;
      }
      hintIndex = (hintIndex + 1) % hints.length;
      selected.clear();
      for (const c of hints[hintIndex]!.cards) selected.add(c);
      notice = "";
      render();
    } catch (err) {
      toast(explain(err));
    }
  };

  const lastTurns = (t: Table): Map<number, Turn> => {
    // The latest play or pass of each seat in the current round (the last three turns).
    const last = new Map<number, Turn>();
    for (const turn of t.turns.slice(-3)) last.set(turn.seat, turn);
    return last;
  };

  function playShown(turn: Turn | undefined) {
    if (!turn) return h("div", { class: "played empty" });
    if (turn.cards.length === 0) return h("div", { class: "played pass" }, "不出 pass");
    return h(
      "div",
      { class: "played" },
      h("div", { class: "mini-cards" }, ...turn.cards.map((c) => cardFace(c))),
      h("div", { class: "kind" }, KINDS[turn.combination?.kind ?? Kind.UNSPECIFIED], turn.by === Actor.SEAT ? "" : " (auto)"),
    );
  }

  function seatBox(t: Table, seat: number, position: string, last: Map<number, Turn>) {
    const s = t.seats[seat];
    if (!s) return null;
    const acting = t.toAct === seat;
    const bid = t.bids.filter((b) => b.seat === seat).at(-1);
    return h(
      "div",
      { class: `seat ${position}${acting ? " acting" : ""}`, "data-seat": seat, "data-cards-left": s.cardsLeft },
      h(
        "div",
        { class: "who" },
        h("div", { class: `avatar ${s.landlord ? "landlord" : ""}` }, s.landlord ? "地主" : t.landlord >= 0 ? "农民" : "?"),
        h(
          "div",
          {},
          h("div", { class: "name", title: s.playerId }, nameOf(seat)),
          h("div", { class: "sub" }, [s.landlord ? "landlord" : t.landlord >= 0 ? "farmer" : "", standingLine(s.profile)].filter(Boolean).join(" · ")),
        ),
        isBot(s.playerId, s.profile) ? h("span", { class: "badge bot" }, BOT_MARK) : null,
        s.autoPlay ? h("span", { class: "badge" }, "托管 auto") : null,
        s.left ? h("span", { class: "badge" }, "left") : null,
        s.ready && t.status !== TableStatus.DEALING ? h("span", { class: "badge" }, "ready") : null,
      ),
      position === "bottom"
        ? null
        : h(
            "div",
            { class: "backs", title: `${s.cardsLeft} cards` },
            ...Array.from({ length: Math.min(s.cardsLeft, 10) }, () => h("div", { class: "back" })),
            h("span", { class: "count" }, String(s.cardsLeft)),
          ),
      acting ? (timerEl = h("div", { class: "turn-timer" })) : null,
      t.phase === Phase.BIDDING && bid ? h("div", { class: "played bid" }, bid.points === 0 ? "不叫 no bid" : `${bid.points} 分`) : playShown(last.get(seat)),
    );
  }

  function controls(t: Table) {
    if (spectator || me() === undefined) {
      return h("div", { class: "buttons" }, h("a", { class: "button", href: "#/" }, "Back to the lobby"));
    }
    const list: (HTMLElement | null)[] = [];
    const mine = myTurn();
    if (t.status === TableStatus.DEALING && t.phase === Phase.BIDDING && mine) {
      const highest = Math.max(0, ...t.bids.map((b) => b.points));
      for (const points of [1, 2, 3]) {
        list.push(
          h("button", { class: "primary", "data-bid": points, disabled: points <= highest, onclick: () => void act(() => api.doudizhu.bid({ ...req(), points })) }, `${points} 分`),
        );
      }
      list.push(h("button", { "data-bid": 0, onclick: () => void act(() => api.doudizhu.bid({ ...req(), points: 0 })) }, "不叫 No bid"));
    }
    if (t.status === TableStatus.DEALING && t.phase === Phase.PLAYING && mine) {
      list.push(
        h("button", { id: "hint", onclick: () => void hint() }, "Hint 提示"),
        h(
          "button",
          {
            id: "play",
            class: "primary",
            disabled: selected.size === 0,
            onclick: () => void act(() => api.doudizhu.play({ ...req(), cards: [...selected] })),
          },
          "Play 出牌",
        ),
        t.mustLead ? null : h("button", { id: "pass", onclick: () => void act(() => api.doudizhu.pass(req())) }, "Pass 不出"),
      );
    }
    if (t.status === TableStatus.DEALING) {
      const auto = t.seats[me()!]?.autoPlay ?? false;
      list.push(
        h("button", { id: "auto", class: auto ? "toggled" : "", onclick: () => void act(() => api.doudizhu.setAutoPlay({ ...req(), on: !auto })) }, auto ? "Auto-play: on" : "Auto-play: off"),
      );
    }
    if (t.status === TableStatus.BETWEEN_DEALS) {
      const ready = t.seats[me()!]?.ready ?? false;
      list.push(
        h("button", { class: "primary", id: "next-deal", disabled: ready, onclick: () => {
          const next = req();
          void act(() => untilSettled(() => api.doudizhu.nextDeal(next)));
        } }, ready ? "Waiting for the others…" : "Next deal 准备"),
      );
    }
    const closed = t.status === TableStatus.CLOSED;
    list.push(
      h(
        "button",
        {
          id: "leave",
          onclick: async () => {
            if (!closed) {
              if (t.status === TableStatus.DEALING && !confirm("Leave during a deal? That is an escape (逃跑) and costs points.")) return;
              if (t.status !== TableStatus.DEALING && t.friendsTable && !confirm(FRIENDS_SEAT_WARNING)) return;
              try {
                await api.doudizhu.leave(req());
              } catch (err) {
                toast(explain(err));
              }
            }
            location.hash = afterTable(tableId, t.friendsTable);
          },
        },
        closed ? (t.friendsTable && friendsCode() ? "Back to the friends' table" : "Back to the lobby") : "Leave table",
      ),
    );
    return h("div", { class: "buttons" }, ...list);
  }

  function result(t: Table) {
    const r = t.result;
    if (!r || t.phase !== Phase.FINISHED || r.outcome === Outcome.UNSPECIFIED) return null;
    const my = me();
    const landlordWon = r.outcome === Outcome.LANDLORD_WON;
    const iWon = my !== undefined && Number(r.points[my] ?? 0n) > 0;
    const headline =
      r.outcome === Outcome.REDEAL
        ? "Everyone passed: a new deal"
        : r.outcome === Outcome.ESCAPED
          ? `${nameOf(r.seat)} escaped`
          : my === undefined
            ? landlordWon ? "The landlord wins" : "The farmers win"
            : iWon ? "You win!" : "You lose";
    const mine = r.settlement.find((x) => x.seat === my);
    if (mine) {
      sessionStorage.setItem(
        "gamehub.lastResult",
        `Last deal (Dou Dizhu): ${headline} · ${signed(mine.pointsDelta)} points · ${signed(mine.silverDelta)} silver`,
      );
    }
    const extras = [
      `bid ${r.bid}`,
      `multiplier ×${r.multiplier}`,
      r.bombs ? `${r.bombs} bomb${r.bombs > 1 ? "s" : ""}` : "",
      r.rockets ? "rocket" : "",
      r.spring ? "spring 春天" : "",
      r.antiSpring ? "anti-spring 反春" : "",
    ].filter(Boolean);
    return h(
      "div",
      { class: `result ${my === undefined ? "" : iWon ? "win" : "loss"}`, id: "result" },
      h("div", { class: "headline" }, headline),
      h("div", { class: "description" }, extras.join(" · ")),
      h(
        "table",
        { class: "scores" },
        h("tr", {}, h("th", {}, "player"), h("th", {}, "points"), h("th", {}, "silver")),
        ...t.seats.map((s) => {
          const settled = r.settlement.find((x) => x.seat === s.seat);
          return h(
            "tr",
            { "data-player": s.playerId },
            h("td", {}, nameOf(s.seat), s.landlord ? " 地主" : ""),
            h("td", {}, signed(r.points[s.seat] ?? 0n)),
            h("td", { class: "silver-delta" }, settled ? signed(settled.silverDelta) : Number(t.stakes?.silverPerPoint ?? 0n) === 0 ? "free room" : "settling…"),
          );
        }),
      ),
    );
  }

  function render() {
    const t = table;
    if (!t) return;
    timerEl = null;
    const my = me();
    // Seats in play order around the table: the next seat on the right, the one after on the left.
    const right = my === undefined ? 1 : (my + 1) % 3;
    const left = my === undefined ? 2 : (my + 2) % 3;
    const last = lastTurns(t);
    const hand = t.hand;
    for (const c of [...selected]) if (!hand.includes(c)) selected.delete(c);
    view.dataset.eventId = String(t.lastEventId);
    const status =
      t.status === TableStatus.CLOSED
        ? "The table is closed."
        : t.phase === Phase.BIDDING
          ? myTurn() ? "Your bid (叫分): 1, 2 or 3 points, or no bid." : `${nameOf(t.toAct)} is bidding.`
          : t.phase === Phase.PLAYING
            ? myTurn()
              ? t.mustLead ? "Your lead: select cards (or press Hint), then Play." : "Your turn: beat the play, or pass."
              : `${nameOf(t.toAct)} to play.`
            : t.status === TableStatus.BETWEEN_DEALS ? "The deal is over." : "Dealing…";
    mount(
      view,
      h(
        "header",
        { class: "table-head" },
        h(
          "h2",
          {},
          "Dou Dizhu 斗地主",
          spectator ? h("span", { class: "badge" }, "spectating: no hand is shown") : null,
          t.friendsTable ? h("span", { class: "badge" }, "friends' table 好友房") : null,
        ),
        h(
          "div",
          { class: "sub" },
          `${t.stakes?.roomId ?? ""} · deal ${t.dealNumber} · base ${t.stakes?.pointsBase ?? 1}`,
          Number(t.stakes?.silverPerPoint ?? 0n) > 0 ? ` · ${num(t.stakes!.silverPerPoint)} silver a point` : " · free room",
          ` · ${clock(Number(t.turnTimeMs))} a turn · table ${t.tableId}`,
        ),
      ),
      h(
        "div",
        { class: "felt" },
        seatBox(t, left, "left", last),
        h(
          "div",
          { class: "center" },
          h(
            "div",
            { class: "kitty", id: "kitty" },
            h("div", { class: "label" }, "底牌 kitty"),
            t.kitty.length ? h("div", { class: "mini-cards" }, ...t.kitty.map((c) => cardFace(c))) : h("div", { class: "mini-cards" }, ...[0, 1, 2].map(() => h("div", { class: "back" }))),
          ),
          h(
            "div",
            { class: "multiplier", id: "multiplier" },
            `×${t.multiplier}`,
            t.winningBid ? h("span", { class: "sub" }, ` · bid ${t.winningBid}`) : null,
          ),
          t.trick && t.phase === Phase.PLAYING && t.trick.cards.length
            ? h(
                "div",
                { class: "trick", id: "trick" },
                h("div", { class: "label" }, `to beat: ${nameOf(t.trick.seat)}'s ${KINDS[t.trick.combination?.kind ?? Kind.UNSPECIFIED]}`),
                h("div", { class: "mini-cards" }, ...t.trick.cards.map((c) => cardFace(c))),
              )
            : null,
          h("div", { class: "status", id: "status", "data-my-turn": myTurn() ? "true" : "false", "data-phase": Phase[t.phase] }, status),
          notice ? h("div", { class: "notice", id: "notice", role: "alert" }, notice) : null,
          result(t),
        ),
        seatBox(t, right, "right", last),
      ),
      my === undefined
        ? h(
            "div",
            { class: "me" },
            seatBox(t, 0, "spectated", last),
            h("div", { class: "spectator-note" }, "Spectators see every seat's card count, never a hand."),
          )
        : h(
            "div",
            { class: "me" },
            seatBox(t, my, "bottom", last),
            h(
              "div",
              { class: "hand", id: "hand", "data-count": hand.length },
              ...hand.map((card) =>
                cardFace(card, {
                  class: `card ${card === "RJ" || card[0] === "H" || card[0] === "D" ? "red" : "black"}${card === "BJ" || card === "RJ" ? " joker" : ""}${selected.has(card) ? " selected" : ""}`,
                  onclick: () => {
                    if (selected.has(card)) selected.delete(card);
                    else selected.add(card);
                    render();
                  },
                }),
              ),
            ),
            controls(t),
          ),
      connection === "reconnecting" ? h("div", { class: "notice" }, "Connection lost; reconnecting…") : null,
      connection === "stopped" ? h("div", { class: "notice" }, "This table can no longer be followed; back to the lobby to play on.") : null,
      h("ol", { class: "log", id: "log" }, ...log.slice(-8).map((line) => h("li", {}, line))),
    );
    const logEl = view.querySelector("#log");
    if (logEl) logEl.scrollTop = logEl.scrollHeight;
    tick();
  }

  function tick() {
    if (!table || !timerEl) return;
    const left = Number(table.turnDeadlineUnixMs) - Date.now();
    timerEl.textContent = Number(table.turnDeadlineUnixMs) > 0 ? clock(left) : "";
    timerEl.classList.toggle("low", left < 5000);
  }

  function describe(e: TableEvent): string | null {
    const k = e.kind;
    switch (k.case) {
      case "dealStarted":
        return `Deal ${e.dealNumber}: ${nameOf(k.value.firstBidder)} bids first.`;
      case "bidMade":
        return `${nameOf(k.value.bid?.seat ?? -1)}: ${k.value.bid?.points ? `${k.value.bid.points} 分` : "no bid 不叫"}`;
      case "landlordChosen":
        return `${nameOf(k.value.seat)} is the landlord (地主) at ${k.value.points}.`;
      case "played":
        return `${nameOf(k.value.turn?.seat ?? -1)}: ${KINDS[k.value.turn?.combination?.kind ?? Kind.UNSPECIFIED]} ${k.value.turn?.ranks ?? ""} (${k.value.cardsLeft} left)`;
      case "passed":
        return `${nameOf(k.value.seat)}: pass`;
      case "multiplierChanged":
        return `The multiplier doubles: ×${k.value.multiplier}.`;
      case "autoPlayChanged":
        return `${nameOf(k.value.seat)}: auto-play ${k.value.on ? "on" : "off"}.`;
      case "escaped":
        return `${nameOf(k.value.seat)} left during the deal (escape).`;
      case "dealEnded":
        return `The deal is over.`;
      case "readyForNextDeal":
        return `${nameOf(k.value.seat)} is ready.`;
      case "dealSettled":
        window.dispatchEvent(new Event("gamehub:settled"));
        return `Settled: ${k.value.seats.map((s) => `${nameOfId(s.playerId)} ${signed(s.silverDelta)}`).join(", ")} silver.`;
      case "tableClosed":
        return "The table closed.";
      default:
        return null;
    }
  }

  const feed = openFeed<Table, WatchResponse>({
    tableId: spectator ? `${tableId}.spectator` : tableId,
    read: async () => (await api.doudizhu.getTable({ tableId, asSpectator: spectator })).table!,
    watch: (afterEventId, signal) => api.doudizhu.watch({ tableId, afterEventId, asSpectator: spectator }, { signal }),
    snapshot: (item) => (item.item.case === "snapshot" ? item.item.value : undefined),
    event: (item) => (item.item.case === "event" ? { id: item.item.value.eventId, line: describe(item.item.value) } : undefined),
    lastEventId: (t) => t.lastEventId,
    render: (t) => {
      table = t;
      // A friends' table's game table closed: back to the friends' table's lobby.
      if (t.status === TableStatus.CLOSED && t.friendsTable && !spectator) {
        const back = afterTable(tableId, true);
        if (back !== LOBBY_ROUTE) {
          toast("The game table closed: back to the friends' table.", "info");
          location.hash = back;
          return;
        }
      }
      render();
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
    },
  };
}
