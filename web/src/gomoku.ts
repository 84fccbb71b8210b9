// The Gomoku table: the board (SVG), both clocks, the game's buttons, the result.
// Everything shown comes from the referee; a click only asks it for a move.

import { explain, requestId, untilSettled, type Api } from "./api.js";
import { openFeed } from "./feed.js";
import { BOT_MARK, displayName, isBot, standingLine } from "./names.js";
import { FRIENDS_SEAT_WARNING, LOBBY_ROUTE, afterTable, friendsCode } from "./routes.js";
import { clock, h, mount, num, signed, svg, toast } from "./ui.js";
import {
  Color,
  EndReason,
  ForbiddenKind,
  Phase,
  RuleSet,
  TableStatus,
  type Opening,
  type Point,
  type Table,
  type TableEvent,
  type WatchResponse,
} from "./gen/gamehub/gomoku/v1/gomoku_pb.js";

const SIZE = 15;
const COLUMNS = "abcdefghijklmno";
const CELL = 40;
const MARGIN = 34;
const BOARD_PX = MARGIN * 2 + CELL * (SIZE - 1);

export const RULES: Record<string, string> = {
  freestyle: "Freestyle (无禁手): five or more in a row wins, for either color.",
  "renju-lose": "Renju (有禁手): black may not make double three, double four or overline; a forbidden move loses.",
  "renju-refuse": "Renju (禁手不能落子): the points forbidden to black cannot be played; they are marked ×.",
  "renju-claim": "Renju (指出禁手): a forbidden black stone stands until white claims it; a right claim wins.",
  "renju-swap": "Renju with swap (三手交换, 五手两打): white may swap after move 3; black proposes two fifth moves.",
};

/** How a room or table with designated openings (指定打法) starts its games, in words. */
export function designatedOpening(choice: string): string | null {
  if (choice === "") return null;
  if (choice === "random") return "Designated openings (指定打法): each game starts from one of the 26 standard openings, drawn at random; white plays move 4.";
  return `Designated opening (指定打法) ${choice}: every game starts from it; white plays move 4.`;
}

/** An opening in words: "花月 Kagetsu (4D): h8 h9 i9". */
export function openingName(o: Opening): string {
  return `${o.nameZh} ${o.name} (${o.code}): ${o.stones.map((p) => p.text).join(" ")}`;
}

const RULE_SET_NAMES: Record<RuleSet, string> = {
  [RuleSet.UNSPECIFIED]: "",
  [RuleSet.FREESTYLE]: "freestyle",
  [RuleSet.RENJU_LOSE]: "renju-lose",
  [RuleSet.RENJU_REFUSE]: "renju-refuse",
  [RuleSet.RENJU_CLAIM]: "renju-claim",
  [RuleSet.RENJU_SWAP]: "renju-swap",
};

const FORBIDDEN_NAMES: Record<ForbiddenKind, string> = {
  [ForbiddenKind.UNSPECIFIED]: "forbidden",
  [ForbiddenKind.OVERLINE]: "overline (长连)",
  [ForbiddenKind.DOUBLE_FOUR]: "double four (四四)",
  [ForbiddenKind.DOUBLE_THREE]: "double three (三三)",
};

const pointText = (x: number, y: number) => `${COLUMNS[x]}${y + 1}`;
const colorName = (c: Color) => (c === Color.BLACK ? "black" : c === Color.WHITE ? "white" : "");

export interface GomokuView {
  stop: () => void;
}

/** Shows table `tableId` in `root`; `spectator` shows it without acting. */
export function gomokuTable(api: Api, root: HTMLElement, tableId: string, spectator: boolean): GomokuView {
  let table: Table | undefined;
  let receivedAt = Date.now();
  let proposals: string[] = [];
  let notice = "";
  let busy = false;
  let log: string[] = [];
  let connection = "live";

  const boardBox = h("div", { class: "board-box" });
  const side = h("div", { class: "side" });
  const logBox = h("ol", { class: "log", id: "log" });
  mount(root, h("div", { class: "gomoku-table", "data-table": tableId }, boardBox, side));

  const mySeat = () => (spectator ? undefined : table?.yourSeat);
  const myColor = () => {
    const seat = mySeat();
    return seat === undefined ? Color.UNSPECIFIED : (table?.players[seat]?.color ?? Color.UNSPECIFIED);
  };
  const myTurn = () => table?.game?.toActSeat !== undefined && table.game.toActSeat === mySeat();
  const nameOf = (seat: number | undefined) => {
    const p = seat === undefined ? undefined : table?.players[seat];
    if (!p) return "?";
    const name = displayName(p.playerId, p.profile);
    return p.seat === mySeat() ? `${name} (you)` : name;
  };
  /** A settled player by its id: its name at this table. */
  const nameOfId = (playerId: string) => {
    const p = table?.players.find((x) => x.playerId === playerId);
    return p ? nameOf(p.seat) : playerId;
  };

  /** Runs an action; its answer (the table) is shown at once, a refusal in words. */
  const act = async (what: () => Promise<{ table?: Table }>) => {
    if (busy) return;
    busy = true;
    try {
      const answer = await what();
      notice = "";
      feed.apply(answer.table);
    } catch (err) {
      notice = explain(err);
      toast(notice);
      render();
    } finally {
      busy = false;
    }
  };
  const id = { tableId, requestId: "" };
  const req = () => ({ ...id, requestId: requestId() });

  const clickPoint = (x: number, y: number) => {
    const game = table?.game;
    if (!game || spectator || !myTurn()) return;
    const text = pointText(x, y);
    switch (game.phase) {
      case Phase.PLAY:
      case Phase.SWAP_DECISION:
        void act(() => api.gomoku.placeStone({ ...req(), point: { text } }));
        break;
      case Phase.PROPOSE_FIFTH:
        proposals = proposals.includes(text) ? proposals.filter((p) => p !== text) : [...proposals, text].slice(-2);
        render();
        break;
      case Phase.CHOOSE_FIFTH:
        if (game.fifthProposals.some((p) => p.text === text)) {
          void act(() => api.gomoku.chooseFifthMove({ ...req(), point: { text } }));
        }
        break;
      default:
    }
  };

  function boardSvg(t: Table): SVGElement {
    const game = t.game;
    const at = (i: number) => MARGIN + i * CELL;
    const children: SVGElement[] = [];
    children.push(
      svg(
        "defs",
        {},
        svg(
          "linearGradient",
          { id: "wood", x1: 0, y1: 0, x2: 1, y2: 1 },
          svg("stop", { offset: "0%", "stop-color": "#e8bd72" }),
          svg("stop", { offset: "55%", "stop-color": "#d9a657" }),
          svg("stop", { offset: "100%", "stop-color": "#c98f42" }),
        ),
        svg(
          "radialGradient",
          { id: "black-stone", cx: "35%", cy: "30%", r: "70%" },
          svg("stop", { offset: "0%", "stop-color": "#6b6b72" }),
          svg("stop", { offset: "45%", "stop-color": "#1d1d21" }),
          svg("stop", { offset: "100%", "stop-color": "#000" }),
        ),
        svg(
          "radialGradient",
          { id: "white-stone", cx: "35%", cy: "30%", r: "75%" },
          svg("stop", { offset: "0%", "stop-color": "#ffffff" }),
          svg("stop", { offset: "70%", "stop-color": "#ebe6da" }),
          svg("stop", { offset: "100%", "stop-color": "#c9c2b2" }),
        ),
      ),
    );
    children.push(svg("rect", { class: "wood", x: 0, y: 0, width: BOARD_PX, height: BOARD_PX, rx: 10 }));
    for (let i = 0; i < SIZE; i++) {
      children.push(svg("line", { class: "grid", x1: at(0), y1: at(i), x2: at(SIZE - 1), y2: at(i) }));
      children.push(svg("line", { class: "grid", x1: at(i), y1: at(0), x2: at(i), y2: at(SIZE - 1) }));
      children.push(svg("text", { class: "coord", x: at(i), y: BOARD_PX - 8 }, COLUMNS[i]!));
      children.push(svg("text", { class: "coord", x: 12, y: at(SIZE - 1 - i) + 4 }, i + 1));
    }
    for (const [x, y] of [[7, 7], [3, 3], [11, 3], [3, 11], [11, 11]] as const) {
      children.push(svg("circle", { class: "star", cx: at(x), cy: at(SIZE - 1 - y), r: 4 }));
    }
    const stones = new Map<string, { color: Color; ply: number }>();
    for (const s of game?.stones ?? []) stones.set(s.point?.text ?? "", { color: s.color, ply: s.ply });
    const forbidden = new Map<string, ForbiddenKind>();
    const overOrSpectator = !game || game.phase === Phase.OVER;
    if (!overOrSpectator) for (const f of game.forbiddenPoints) forbidden.set(f.point?.text ?? "", f.kind);
    const offered = new Set((game?.phase === Phase.CHOOSE_FIFTH ? game.fifthProposals : []).map((p: Point) => p.text));
    const proposing = game?.phase === Phase.PROPOSE_FIFTH && myTurn();
    const last = game?.lastMove?.point?.text;
    const clickable = !spectator && myTurn() && game?.phase !== Phase.OVER;
    for (let y = 0; y < SIZE; y++) {
      for (let x = 0; x < SIZE; x++) {
        const text = pointText(x, y);
        const cx = at(x);
        const cy = at(SIZE - 1 - y);
        const stone = stones.get(text);
        const parts: SVGElement[] = [];
        if (stone) {
          const c = colorName(stone.color);
          parts.push(svg("circle", { class: `stone ${c}`, cx, cy, r: CELL * 0.45 }));
          if (text === last) parts.push(svg("circle", { class: "last", cx, cy, r: 5 }));
        } else if (offered.has(text) || (proposing && proposals.includes(text))) {
          parts.push(svg("circle", { class: "stone black proposal", cx, cy, r: CELL * 0.45 }));
          parts.push(svg("text", { class: "proposal-mark", x: cx, y: cy + 6 }, "?"));
        } else if (forbidden.has(text)) {
          parts.push(svg("path", { class: "forbidden", d: `M${cx - 8} ${cy - 8}L${cx + 8} ${cy + 8}M${cx + 8} ${cy - 8}L${cx - 8} ${cy + 8}` }));
          parts.push(svg("title", {}, `${text}: forbidden for black, ${FORBIDDEN_NAMES[forbidden.get(text)!]}`));
        } else if (clickable) {
          parts.push(svg("circle", { class: `ghost ${colorName(myColor()) || "black"}`, cx, cy, r: CELL * 0.42 }));
        }
        parts.push(svg("rect", { class: "hit", x: cx - CELL / 2, y: cy - CELL / 2, width: CELL, height: CELL }));
        const g = svg(
          "g",
          {
            class: `point${clickable && !stone ? " playable" : ""}`,
            "data-point": text,
            "data-stone": stone ? colorName(stone.color) : "",
            "data-forbidden": forbidden.has(text) ? "true" : null,
          },
          ...parts,
        );
        g.addEventListener("click", () => clickPoint(x, y));
        children.push(g);
      }
    }
    return svg(
      "svg",
      { class: "board", viewBox: `0 0 ${BOARD_PX} ${BOARD_PX}`, role: "img", "aria-label": "Gomoku board" },
      ...children,
    );
  }

  const clockEls: HTMLElement[] = [];
  let moveClockEl: HTMLElement | null = null;

  function tick() {
    const game = table?.game;
    if (!table || !game) return;
    const elapsed = Date.now() - receivedAt;
    const running = game.phase !== Phase.OVER && table.status === TableStatus.PLAYING;
    game.clocks.forEach((c, i) => {
      const el = clockEls[i];
      if (!el) return;
      const left = Number(c.remainingMs) - (c.running && running ? elapsed : 0);
      el.textContent = Number(table!.timeControl?.totalMs ?? 0n) > 0 ? clock(left) : "∞";
    });
    if (moveClockEl) {
      const deadline = Number(game.turnDeadlineUnixMs);
      const serverNow = Number(table.serverTimeUnixMs) + elapsed;
      moveClockEl.textContent = deadline > 0 && running ? `move ${clock(deadline - serverNow)}` : "";
      moveClockEl.classList.toggle("low", deadline > 0 && deadline - serverNow < 10_000);
    }
  }

  function status(t: Table): string {
    const game = t.game;
    if (t.status === TableStatus.CLOSED) return `The table is closed${t.closedReason ? `: ${t.closedReason}` : ""}.`;
    if (!game || game.phase === Phase.OVER) {
      if (t.status !== TableStatus.BETWEEN_GAMES) return "Game over.";
      return t.leavingEscapes
        ? "Game over. The second game of the pair is next (each player takes black once); leaving now is an escape."
        : "Game over. Play again, or leave the table.";
    }
    const who = nameOf(game.toActSeat);
    const mine = myTurn();
    switch (game.phase) {
      case Phase.SWAP_DECISION:
        return mine ? "Swap (三手交换): take black with Swap, or play move 4 as white." : `${who} decides whether to swap.`;
      case Phase.PROPOSE_FIFTH:
        return mine
          ? `Propose two fifth moves (五手两打): click two points, then Propose (${proposals.length}/2).`
          : `${who} proposes two fifth moves.`;
      case Phase.CHOOSE_FIFTH:
        return mine ? "Choose which of black's two proposals stays: click it." : `${who} chooses the fifth move.`;
      default:
        return mine ? `Your move (${colorName(game.toMove)}).` : `${who} to move (${colorName(game.toMove)}).`;
    }
  }

  function playerCard(t: Table, seat: number) {
    const p = t.players[seat];
    const game = t.game;
    const c = colorName(p?.color ?? Color.UNSPECIFIED);
    const standing = standingLine(p?.profile);
    const acting = game?.toActSeat === seat && game.phase !== Phase.OVER;
    const clockEl = h("span", { class: "total-clock" });
    clockEls[seat] = clockEl;
    const move = acting ? h("span", { class: "move-clock" }) : null;
    if (move) moveClockEl = move;
    return h(
      "div",
      { class: `player${acting ? " acting" : ""}${p?.left ? " left" : ""}`, "data-seat": seat, "data-color": c },
      h("span", { class: `dot ${c}` }),
      h("span", { class: "name", title: p?.playerId ?? "" }, nameOf(seat), standing ? h("span", { class: "sub standing" }, ` ${standing}`) : null),
      p && isBot(p.playerId, p.profile) ? h("span", { class: "badge bot" }, BOT_MARK) : null,
      p?.wantsNextGame ? h("span", { class: "badge" }, "ready") : null,
      p?.left ? h("span", { class: "badge" }, "left") : null,
      h("span", { class: "clocks" }, move, clockEl),
    );
  }

  function result(t: Table) {
    const game = t.game;
    const r = game?.result;
    if (!game || !r || game.phase !== Phase.OVER) return null;
    const finished = t.finishedGames.find((f) => f.number === game.number);
    const seats = finished?.settlement?.seats ?? [];
    const me = mySeat();
    const headline =
      r.winnerSeat === undefined ? "Draw" : me === undefined ? `${nameOf(r.winnerSeat)} wins` : r.winnerSeat === me ? "You win!" : "You lose";
    const mine = seats.find((x) => x.playerId === t.players[me ?? -1]?.playerId);
    if (mine) {
      sessionStorage.setItem(
        "gamehub.lastResult",
        `Last game (Gomoku): ${headline} · ${signed(mine.pointsDelta)} points · ${signed(mine.silverDelta)} silver`,
      );
    }
    const reason = r.reason === EndReason.FORBIDDEN_MOVE ? ` (${FORBIDDEN_NAMES[r.forbiddenKind]})` : "";
    return h(
      "div",
      { class: `result ${r.winnerSeat === undefined ? "draw" : r.winnerSeat === me ? "win" : me === undefined ? "" : "loss"}`, id: "result" },
      h("div", { class: "headline" }, headline),
      h("div", { class: "description" }, r.description + reason),
      h(
        "table",
        { class: "scores" },
        h("tr", {}, h("th", {}, "player"), h("th", {}, "points"), h("th", {}, "silver"), h("th", {}, "balance")),
        ...t.players.map((p) => {
          const s = seats.find((x) => x.playerId === p.playerId);
          return h(
            "tr",
            { "data-player": p.playerId },
            h("td", {}, nameOf(p.seat)),
            h("td", {}, signed(r.points[p.seat] ?? 0n)),
            h("td", { class: "silver-delta" }, s ? signed(s.silverDelta) : Number(t.stakes?.silverPerPoint ?? 0n) === 0 ? "free room" : "settling…"),
            h("td", { class: "balance" }, s ? num(s.balanceSilver) : ""),
          );
        }),
      ),
    );
  }

  function buttons(t: Table) {
    const game = t.game;
    if (spectator) return h("div", { class: "buttons" }, h("a", { class: "button", href: "#/" }, "Back to the lobby"));
    const playing = game && game.phase !== Phase.OVER && t.status === TableStatus.PLAYING;
    const me = mySeat();
    const list: (HTMLElement | null)[] = [];
    if (playing) {
      const offeredBy = game.drawOfferedBySeat;
      if (offeredBy !== undefined && offeredBy !== me) {
        list.push(
          h("span", { class: "question" }, `${nameOf(offeredBy)} offers a draw (和棋).`),
          h("button", { class: "primary", onclick: () => void act(() => api.gomoku.answerDraw({ ...req(), accept: true })) }, "Accept draw"),
          h("button", { onclick: () => void act(() => api.gomoku.answerDraw({ ...req(), accept: false })) }, "Decline"),
        );
      }
      if (t.ruleSet === RuleSet.RENJU_CLAIM && myTurn() && myColor() === Color.WHITE && game.phase === Phase.PLAY) {
        list.push(h("button", { onclick: () => void act(() => api.gomoku.claimForbidden(req())) }, "Claim forbidden (指出禁手)"));
      }
      if (game.phase === Phase.SWAP_DECISION && myTurn()) {
        list.push(h("button", { class: "primary", onclick: () => void act(() => api.gomoku.swap(req())) }, "Swap (take black)"));
      }
      if (game.phase === Phase.PROPOSE_FIFTH && myTurn()) {
        list.push(
          h(
            "button",
            {
              class: "primary",
              disabled: proposals.length !== 2,
              onclick: () => void act(() => api.gomoku.proposeFifthMoves({ ...req(), points: proposals.map((text) => ({ text })) })),
            },
            "Propose",
          ),
        );
      }
      if (offeredBy === undefined) {
        list.push(h("button", { onclick: () => void act(() => api.gomoku.offerDraw(req())) }, "Offer draw"));
      }
      list.push(
        h(
          "button",
          {
            class: "danger",
            onclick: () => {
              if (confirm("Resign this game (投降)?")) void act(() => api.gomoku.resign(req()));
            },
          },
          "Resign",
        ),
      );
    } else if (t.status === TableStatus.BETWEEN_GAMES) {
      const ready = me !== undefined && t.players[me]?.wantsNextGame;
      list.push(
        h("button", { class: "primary", id: "next-game", disabled: ready, onclick: () => {
          const next = req();
          void act(() => untilSettled(() => api.gomoku.nextGame(next)));
        } }, ready ? "Waiting for the opponent…" : "Next game"),
      );
    }
    const leaving = t.status === TableStatus.CLOSED;
    list.push(
      h(
        "button",
        {
          id: "leave",
          onclick: async () => {
            if (!leaving) {
              // The server says when leaving is an escape: during a game, and between the
              // two games of a pair (docs/rules.md#games-in-pairs).
              const warning = playing
                ? "Leave during a game? That is an escape (逃跑) and loses the game."
                : "Leave before the second game of the pair? That is an escape (逃跑) from it and loses it.";
              if (t.leavingEscapes && !confirm(warning)) return;
              if (!t.leavingEscapes && t.friendsTable && !confirm(FRIENDS_SEAT_WARNING)) return;
              try {
                await api.gomoku.leave(req());
              } catch (err) {
                toast(explain(err));
              }
            }
            location.hash = afterTable(tableId, t.friendsTable);
          },
        },
        leaving ? (t.friendsTable && friendsCode() ? "Back to the friends' table" : "Back to the lobby") : "Leave table",
      ),
    );
    return h("div", { class: "buttons" }, ...list);
  }

  function render() {
    const t = table;
    if (!t) return;
    mount(boardBox, boardSvg(t));
    clockEls.length = 0;
    moveClockEl = null;
    const rules = RULE_SET_NAMES[t.ruleSet];
    const stakes = t.stakes;
    mount(
      side,
      h(
        "header",
        { class: "table-head" },
        h(
          "h2",
          {},
          "Gomoku 五子棋",
          spectator ? h("span", { class: "badge" }, "spectating") : null,
          t.friendsTable ? h("span", { class: "badge" }, "friends' table 好友房") : null,
        ),
        h("div", { class: "sub" }, `${t.roomId} · game ${t.game?.number ?? 1} · table ${t.tableId}`),
        t.game?.opening ? h("div", { class: "sub", id: "opening" }, `Opening 开局: ${openingName(t.game.opening)} · white plays move 4`) : null,
      ),
      playerCard(t, t.players[0]?.color === Color.BLACK ? 0 : 1),
      playerCard(t, t.players[0]?.color === Color.BLACK ? 1 : 0),
      h(
        "div",
        {
          class: "status",
          id: "status",
          "data-my-turn": myTurn() ? "true" : "false",
          "data-my-color": colorName(myColor()),
          "data-phase": Phase[t.game?.phase ?? Phase.UNSPECIFIED],
        },
        status(t),
      ),
      notice ? h("div", { class: "notice", id: "notice", role: "alert" }, notice) : null,
      result(t),
      buttons(t),
      h(
        "div",
        { class: "rules" },
        RULES[rules] ?? rules,
        designatedOpening(t.designatedOpening),
        stakes
          ? h(
              "div",
              { class: "sub" },
              Number(stakes.silverPerPoint) > 0
                ? `Base ${stakes.pointsBase} · ${num(stakes.silverPerPoint)} silver a point${stakes.rated ? " · rated" : ""}`
                : "Free room: points only, no silver",
            )
          : null,
      ),
      connection === "reconnecting" ? h("div", { class: "notice" }, "Connection lost; reconnecting…") : null,
      connection === "stopped" ? h("div", { class: "notice" }, "This table can no longer be followed; back to the lobby to play on.") : null,
      logBox,
    );
    logBox.scrollTop = logBox.scrollHeight;
    tick();
  }

  const feed = openFeed<Table, WatchResponse>({
    tableId: spectator ? `${tableId}.spectator` : tableId,
    read: async () => (await api.gomoku.getTable({ tableId })).table!,
    watch: (afterEventId, signal) => api.gomoku.watch({ tableId, afterEventId }, { signal }),
    snapshot: (item) => (item.item.case === "table" ? item.item.value : undefined),
    event: (item) => (item.item.case === "event" ? { id: item.item.value.eventId, line: describe(item.item.value) } : undefined),
    lastEventId: (t) => t.lastEventId,
    render: (t) => {
      if (t.game?.phase !== Phase.PROPOSE_FIFTH) proposals = [];
      table = t;
      receivedAt = Date.now();
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
      mount(logBox, ...log.slice(-12).map((line) => h("li", {}, line)));
      logBox.scrollTop = logBox.scrollHeight;
      if (changed) render();
    },
  });

  function describe(e: TableEvent): string | null {
    const k = e.kind;
    switch (k.case) {
      case "gameStarted":
        return k.value.opening
          ? `Game ${e.gameNumber} starts from the opening ${openingName(k.value.opening)}: ${nameOf(k.value.blackSeat)} plays black, white plays move 4.`
          : `Game ${e.gameNumber} starts: ${nameOf(k.value.blackSeat)} plays black.`;
      case "stonePlaced":
        return `${k.value.stone?.ply}. ${colorName(k.value.stone?.color ?? Color.UNSPECIFIED)} ${k.value.stone?.point?.text} (${nameOf(k.value.seat)})`;
      case "forbiddenClaimUpheld":
        return `${nameOf(k.value.seat)} claims a forbidden move: right (${FORBIDDEN_NAMES[k.value.kind]}).`;
      case "forbiddenClaimRejected":
        return `${nameOf(k.value.seat)} claims a forbidden move: wrong; black moves again.`;
      case "drawOffered":
        return `${nameOf(k.value.seat)} offers a draw.`;
      case "drawDeclined":
        return `${nameOf(k.value.seat)} declines the draw.`;
      case "drawLapsed":
        return "The draw offer lapsed.";
      case "swapped":
        return `${nameOf(k.value.seat)} swaps and now plays black.`;
      case "fifthProposed":
        return `${nameOf(k.value.seat)} proposes ${k.value.points.map((p) => p.text).join(" and ")}.`;
      case "fifthChosen":
        return `${nameOf(k.value.seat)} keeps ${k.value.point?.text} (drops ${k.value.rejected?.text}).`;
      case "gameOver":
        return `Game over: ${k.value.result?.description}.`;
      case "nextGameRequested":
        return `${nameOf(k.value.seat)} wants another game.`;
      case "playerLeft":
        return `${nameOf(k.value.seat)} left the table${k.value.escaped ? " (escape)" : ""}.`;
      case "tableClosed":
        return `The table closed: ${k.value.reason}.`;
      case "gameSettled":
        window.dispatchEvent(new Event("gamehub:settled"));
        return `Game ${k.value.number} settled: ${(k.value.settlement?.seats ?? []).map((s) => `${nameOfId(s.playerId)} ${signed(s.silverDelta)} silver`).join(", ")}.`;
      default:
        return null;
    }
  }

  const timer = setInterval(tick, 250);
  return {
    stop: () => {
      clearInterval(timer);
      feed.stop();
    },
  };
}
