// The Gomoku table: the board (SVG), both clocks, the game's buttons, the move list, the
// result. Everything shown comes from the referee; a tap or click only asks it for a move.
//
// Layout (gomoku.css): the table is one grid of five areas — head, players (names and
// clocks), board, turn (status line, notice, result, the turn's buttons) and info (move
// list, rules, log). A phone stacks them with the board full width; a desktop puts the
// board on the left and the rest beside it.
//
// Input: with a mouse a click places at once; on a touch screen the first tap shows a
// ghost stone and a confirm button (确定落子), a second tap on the same point or the
// button places it. A point the server marks forbidden for black asks first, in the page,
// in the rooms where playing it loses (or can be claimed).

import { explain, requestId, untilSettled, type Api } from "./api.js";
import { openFeed } from "./feed.js";
import { S, type Strings } from "./i18n/index.js";
import { BOT_MARK, displayName, isBot, standingLine } from "./names.js";
import { LOBBY_ROUTE, afterTable, friendsCode } from "./routes.js";
import { sound, type Sound } from "./settings.js";
import { tournamentLink } from "./tournament-link.js";
import { clock, h, mount, num, signed, svg, toast } from "./ui.js";
import { GameType } from "./gen/gamehub/common/v1/common_pb.js";
import {
  CloseReason,
  Color,
  EndReason,
  ForbiddenKind,
  Outcome,
  Phase,
  RuleSet,
  TableStatus,
  type GameResult,
  type Opening,
  type Point,
  type Table,
  type TableEvent,
  type WatchResponse,
} from "./gen/gamehub/gomoku/v1/gomoku_pb.js";

const SIZE = 15;
const COLUMNS = "abcdefghijklmno";
const CELL = 40;
const MARGIN = 32;
const BOARD_PX = MARGIN * 2 + CELL * (SIZE - 1);
const NUMBERS_KEY = "gamehub.gomoku.moveNumbers";

type Side = "black" | "white";

/**
 * The rule sets in the player's language, by the room's rule-set name (ListRooms). Read
 * at each use, so a language switch shows at the next redraw.
 */
export const RULES: Record<string, string> = Object.defineProperties({} as Record<string, string>, {
  freestyle: { enumerable: true, get: () => S().gomoku.rules.freestyle },
  "renju-lose": { enumerable: true, get: () => S().gomoku.rules.renjuLose },
  "renju-refuse": { enumerable: true, get: () => S().gomoku.rules.renjuRefuse },
  "renju-claim": { enumerable: true, get: () => S().gomoku.rules.renjuClaim },
  "renju-swap": { enumerable: true, get: () => S().gomoku.rules.renjuSwap },
});

/** How a room or table with designated openings (指定打法) starts its games, in words. */
export function designatedOpening(choice: string): string | null {
  if (choice === "") return null;
  if (choice === "random") return S().gomoku.designatedRandom;
  return S().gomoku.designatedOne(choice);
}

/** An opening in words: "花月（4D）：H8 H9 I9" / "Kagetsu (4D): H8 H9 I9". */
export function openingName(o: Opening): string {
  return S().gomoku.openingName(o.nameZh, o.name, o.code, o.stones.map((p) => p.text.toUpperCase()).join(" "));
}

/** A rule set in a few words, for the table's heading. */
function ruleShort(r: RuleSet): string {
  const k = S().gomoku.ruleShort;
  switch (r) {
    case RuleSet.FREESTYLE:
      return k.freestyle;
    case RuleSet.RENJU_LOSE:
      return k.renjuLose;
    case RuleSet.RENJU_REFUSE:
      return k.renjuRefuse;
    case RuleSet.RENJU_CLAIM:
      return k.renjuClaim;
    case RuleSet.RENJU_SWAP:
      return k.renjuSwap;
    default:
      return "";
  }
}

const RULE_SET_NAMES: Record<RuleSet, string> = {
  [RuleSet.UNSPECIFIED]: "",
  [RuleSet.FREESTYLE]: "freestyle",
  [RuleSet.RENJU_LOSE]: "renju-lose",
  [RuleSet.RENJU_REFUSE]: "renju-refuse",
  [RuleSet.RENJU_CLAIM]: "renju-claim",
  [RuleSet.RENJU_SWAP]: "renju-swap",
};

/** The rule a forbidden point breaks, in words (三三 / 四四 / 长连). */
export function forbiddenWord(kind: ForbiddenKind, s: Strings = S()): string {
  const k = s.gomoku.forbiddenKind;
  switch (kind) {
    case ForbiddenKind.OVERLINE:
      return k.overline;
    case ForbiddenKind.DOUBLE_FOUR:
      return k.doubleFour;
    case ForbiddenKind.DOUBLE_THREE:
      return k.doubleThree;
    default:
      return k.unknown;
  }
}

/**
 * How a game ended, in one sentence built from the result's codes (outcome, reason,
 * forbidden kind, seat): 「白方胜：黑方禁手（三三）」 / "White wins: black played a
 * forbidden point (double three)". The server's `description` is not used.
 */
export function resultSentence(r: GameResult, s: Strings = S()): string {
  const g = s.gomoku;
  const winner: Side | undefined = r.outcome === Outcome.BLACK_WINS ? "black" : r.outcome === Outcome.WHITE_WINS ? "white" : undefined;
  const head = winner ? g.wins(g.side[winner]) : g.draw;
  // The seat the reason is about (resigned, ran out of time, escaped, offered the draw),
  // else the loser.
  const actor: Side | undefined =
    r.seat !== undefined ? (r.seat === r.blackSeat ? "black" : "white") : winner === "black" ? "white" : winner === "white" ? "black" : undefined;
  const who = actor ? g.sideLower[actor] : "";
  const kind = forbiddenWord(r.forbiddenKind, s);
  let why = "";
  switch (r.reason) {
    case EndReason.FIVE:
      why = g.why.five;
      break;
    case EndReason.FORBIDDEN_MOVE:
      why = g.why.forbiddenMove(g.sideLower.black, kind);
      break;
    case EndReason.FORBIDDEN_CLAIMED:
      why = g.why.forbiddenClaimed(kind);
      break;
    case EndReason.RESIGNATION:
      why = who ? g.why.resignation(who) : "";
      break;
    case EndReason.TIMEOUT:
      why = who ? g.why.timeout(who) : "";
      break;
    case EndReason.DRAW_AGREED:
      why = who ? g.why.drawAgreed(who) : "";
      break;
    case EndReason.NATURAL_DRAW:
      why = g.why.naturalDraw;
      break;
    case EndReason.ESCAPE:
      why = who ? g.why.escape(who) : "";
      break;
    default:
  }
  return why ? g.sentence(head, why) : head;
}

const pointText = (x: number, y: number) => `${COLUMNS[x]}${y + 1}`;
/** A point as players read it: "H8". */
const shown = (text: string | undefined) => (text ?? "").toUpperCase();
const sideOf = (c: Color): Side | "" => (c === Color.BLACK ? "black" : c === Color.WHITE ? "white" : "");

function numbersOn(): boolean {
  try {
    return localStorage.getItem(NUMBERS_KEY) === "on";
  } catch {
    return false;
  }
}

export interface GomokuView {
  stop: () => void;
}

/** Shows table `tableId` in `root`; `spectator` shows it without acting. */
export function gomokuTable(api: Api, root: HTMLElement, tableId: string, spectator: boolean): GomokuView {
  let table: Table | undefined;
  let receivedAt = Date.now();
  let proposals: string[] = [];
  /** Touch: the point tapped once, shown as a ghost stone until confirmed. */
  let pending: string | null = null;
  let notice = "";
  let busy = false;
  /** A board click that came while an answer was awaited. */
  let afterBusy: (() => void) | null = null;
  let log: string[] = [];
  let connection = "live";
  let showNumbers = numbersOn();
  let closeDialog: (() => void) | null = null;

  const head = h("header", { class: "gk-head table-head" });
  const players = h("div", { class: "gk-players" });
  const boardBox = h("div", { class: "board-box" });
  let boardMarkup = "";
  const turn = h("div", { class: "gk-turn" });
  const info = h("div", { class: "gk-info" });
  const logBox = h("ol", { class: "log", id: "log" });
  const tableEl = h("div", { class: "gomoku-table", "data-table": tableId }, head, players, boardBox, turn, info);
  mount(root, tableEl);

  const mySeat = () => (spectator ? undefined : table?.yourSeat);
  const myColor = () => {
    const seat = mySeat();
    return seat === undefined ? Color.UNSPECIFIED : (table?.players[seat]?.color ?? Color.UNSPECIFIED);
  };
  const myTurn = () => table?.game?.toActSeat !== undefined && table.game.toActSeat === mySeat() && table.game.phase !== Phase.OVER;
  const nameOf = (seat: number | undefined) => {
    const p = seat === undefined ? undefined : table?.players[seat];
    if (!p) return "?";
    const name = displayName(p.playerId, p.profile);
    return p.seat === mySeat() ? S().gomoku.nameYou(name) : name;
  };
  /** A settled player by its id: its name at this table. */
  const nameOfId = (playerId: string) => {
    const p = table?.players.find((x) => x.playerId === playerId);
    return p ? nameOf(p.seat) : playerId;
  };
  const colorWord = (c: Color) => {
    const side = sideOf(c);
    return side ? S().gomoku.stoneShort[side] : "";
  };

  // ---- sounds: a stone placed, the player's turn starting, the end ----------------------
  const played: Sound[] = [];
  const play = (kind: Sound) => {
    sound(kind);
    played.push(kind);
    if (played.length > 40) played.shift();
    // What the page played, for tests and for anyone curious.
    tableEl.dataset.sounds = played.join(" ");
  };
  let seen: { game: number; stones: number; myTurn: boolean; over: boolean } | null = null;
  function sounds(t: Table) {
    const g = t.game;
    const now = { game: g?.number ?? 0, stones: g?.stones.length ?? 0, myTurn: myTurn(), over: g?.phase === Phase.OVER };
    const before = seen;
    seen = now;
    if (!before) return; // the table as found: no sound for what happened before
    if (now.game === before.game && now.stones > before.stones) play("stone");
    if (now.over && !before.over && g?.result) {
      const me = mySeat();
      if (me !== undefined && g.result.winnerSeat !== undefined) play(g.result.winnerSeat === me ? "win" : "lose");
    } else if (now.myTurn && (!before.myTurn || now.game !== before.game)) {
      // A moment after the stone's sound (a quick player may already have moved: the
      // turn still began, so it still sounds, unless a new game came meanwhile).
      const game = now.game;
      setTimeout(() => {
        if (table?.game?.number === game && table.game.phase !== Phase.OVER) play("turn");
      }, now.stones > before.stones ? 120 : 0);
    }
  }

  // ---- an in-page confirmation (not window.confirm) --------------------------------------
  function ask(kind: string, title: string, text: string, ok: string, danger: boolean): Promise<boolean> {
    closeDialog?.();
    return new Promise((resolve) => {
      const done = (answer: boolean) => {
        overlay.remove();
        document.removeEventListener("keydown", onKey);
        closeDialog = null;
        resolve(answer);
      };
      const onKey = (e: KeyboardEvent) => {
        if (e.key === "Escape") done(false);
      };
      const cancel = h("button", { "data-answer": "no", onclick: () => done(false) }, S().gomoku.cancel);
      const overlay = h(
        "div",
        { class: "gk-overlay", id: "confirm-dialog", "data-kind": kind },
        h(
          "div",
          { class: "gk-dialog", role: "alertdialog", "aria-modal": "true", "aria-labelledby": "confirm-title", "aria-describedby": "confirm-text" },
          h("h3", { id: "confirm-title" }, title),
          h("p", { id: "confirm-text" }, text),
          h(
            "div",
            { class: "buttons" },
            cancel,
            h("button", { class: danger ? "danger" : "primary", "data-answer": "yes", onclick: () => done(true) }, ok),
          ),
        ),
      );
      overlay.addEventListener("click", (e) => {
        if (e.target === overlay) done(false);
      });
      document.addEventListener("keydown", onKey);
      closeDialog = () => done(false);
      tableEl.append(overlay);
      cancel.focus();
    });
  }

  /** Runs an action; its answer (the table) is shown at once, a refusal in words, once. */
  const act = async (what: () => Promise<{ table?: Table }>) => {
    if (busy) return;
    busy = true;
    try {
      const answer = await what();
      notice = "";
      feed.apply(answer.table);
    } catch (err) {
      notice = explain(err);
      render();
    } finally {
      busy = false;
      const next = afterBusy;
      afterBusy = null;
      next?.();
    }
  };
  const id = { tableId, requestId: "" };
  const req = () => ({ ...id, requestId: requestId() });

  const placeAt = (text: string) => {
    pending = null;
    void act(() => api.gomoku.placeStone({ ...req(), point: { text } }));
  };

  /** A forbidden point where playing it costs the game: asks first. */
  const forbiddenPolicy = (t: Table): "lose" | "claim" | null =>
    t.ruleSet === RuleSet.RENJU_LOSE || t.ruleSet === RuleSet.RENJU_SWAP ? "lose" : t.ruleSet === RuleSet.RENJU_CLAIM ? "claim" : null;

  const clickPoint = async (x: number, y: number, touch: boolean) => {
    const t = table;
    const game = t?.game;
    if (!t || !game || spectator || !myTurn()) return;
    if (busy) {
      // An answer is still awaited (the board already shows the turn from the stream):
      // the click is taken when it comes, if the turn is still this player's.
      afterBusy = () => void clickPoint(x, y, touch);
      return;
    }
    const text = pointText(x, y);
    switch (game.phase) {
      case Phase.PLAY:
      case Phase.SWAP_DECISION: {
        if (game.stones.some((s) => s.point?.text === text)) return;
        const forbidden = game.forbiddenPoints.find((f) => f.point?.text === text);
        const policy = forbiddenPolicy(t);
        if (forbidden && policy && myColor() === Color.BLACK) {
          // The confirmation is the second step: no ghost first.
          pending = null;
          render();
          const g = S().gomoku;
          const kind = forbiddenWord(forbidden.kind);
          const yes = await ask(
            "forbidden",
            g.forbiddenTitle(kind),
            policy === "lose" ? g.forbiddenLose(shown(text), kind) : g.forbiddenClaim(shown(text), kind),
            g.playAnyway,
            true,
          );
          if (yes && myTurn()) placeAt(text);
          return;
        }
        if (touch && pending !== text) {
          pending = text;
          render();
          return;
        }
        placeAt(text);
        break;
      }
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
      children.push(svg("text", { class: "coord", x: at(i), y: BOARD_PX - 7 }, COLUMNS[i]!.toUpperCase()));
      children.push(svg("text", { class: "coord", x: 13, y: at(SIZE - 1 - i) + 4 }, i + 1));
    }
    for (const [x, y] of [[7, 7], [3, 3], [11, 3], [3, 11], [11, 11]] as const) {
      children.push(svg("circle", { class: "star", cx: at(x), cy: at(SIZE - 1 - y), r: 4 }));
    }
    const stones = new Map<string, { color: Color; ply: number }>();
    for (const s of game?.stones ?? []) stones.set(s.point?.text ?? "", { color: s.color, ply: s.ply });
    const forbidden = new Map<string, ForbiddenKind>();
    const over = !game || game.phase === Phase.OVER;
    if (!over) for (const f of game.forbiddenPoints) forbidden.set(f.point?.text ?? "", f.kind);
    const winning = new Set(over ? (game?.result?.winningLine ?? []).map((p) => p.text) : []);
    const offered = new Set((game?.phase === Phase.CHOOSE_FIFTH ? game.fifthProposals : []).map((p: Point) => p.text));
    const proposing = game?.phase === Phase.PROPOSE_FIFTH && myTurn();
    const last = game?.lastMove?.point?.text;
    const clickable = !spectator && myTurn();
    const mine = sideOf(myColor()) || "black";
    const g = S().gomoku;
    for (let y = 0; y < SIZE; y++) {
      for (let x = 0; x < SIZE; x++) {
        const text = pointText(x, y);
        const cx = at(x);
        const cy = at(SIZE - 1 - y);
        const stone = stones.get(text);
        const parts: SVGElement[] = [];
        const isPending = clickable && !stone && pending === text;
        if (stone) {
          const c = sideOf(stone.color);
          if (winning.has(text)) parts.push(svg("circle", { class: "win-ring", cx, cy, r: CELL * 0.5 }));
          parts.push(svg("circle", { class: `stone ${c}`, cx, cy, r: CELL * 0.45 }));
          if (showNumbers) parts.push(svg("text", { class: `ply ${c}`, x: cx, y: cy + 5 }, stone.ply));
          else if (text === last) parts.push(svg("circle", { class: "last", cx, cy, r: 5 }));
          if (showNumbers && text === last) parts.push(svg("circle", { class: "last-ring", cx, cy, r: CELL * 0.45 }));
        } else if (offered.has(text) || (proposing && proposals.includes(text))) {
          parts.push(svg("circle", { class: "stone black proposal", cx, cy, r: CELL * 0.45 }));
          parts.push(svg("text", { class: "proposal-mark", x: cx, y: cy + 6 }, "?"));
        } else if (isPending) {
          parts.push(svg("circle", { class: `stone ${mine} pending`, cx, cy, r: CELL * 0.45 }));
        } else if (forbidden.has(text)) {
          parts.push(svg("path", { class: "forbidden", d: `M${cx - 8} ${cy - 8}L${cx + 8} ${cy + 8}M${cx + 8} ${cy - 8}L${cx - 8} ${cy + 8}` }));
          parts.push(svg("title", {}, g.forbiddenTip(shown(text), forbiddenWord(forbidden.get(text)!))));
        } else if (clickable) {
          parts.push(svg("circle", { class: `ghost ${mine}`, cx, cy, r: CELL * 0.42 }));
        }
        parts.push(svg("rect", { class: "hit", x: cx - CELL / 2, y: cy - CELL / 2, width: CELL, height: CELL }));
        const point = svg(
          "g",
          {
            class: `point${clickable && !stone ? " playable" : ""}`,
            "data-point": text,
            "data-stone": stone ? sideOf(stone.color) : "",
            "data-forbidden": forbidden.has(text) ? "true" : null,
            "data-winning": winning.has(text) ? "true" : null,
            "data-last": stone && text === last ? "true" : null,
            "data-pending": isPending ? "true" : null,
          },
          ...parts,
        );
        point.addEventListener("click", (e) => {
          // A tap is a PointerEvent with pointerType "touch" (or "pen"); a mouse, a
          // keyboard or a script click places at once.
          const type = (e as PointerEvent).pointerType;
          void clickPoint(x, y, type === "touch" || type === "pen");
        });
        children.push(point);
      }
    }
    return svg(
      "svg",
      { class: "board", viewBox: `0 0 ${BOARD_PX} ${BOARD_PX}`, role: "img", "aria-label": g.boardLabel, "data-numbers": showNumbers ? "on" : "off" },
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
      el.textContent = Number(table!.timeControl?.totalMs ?? 0n) > 0 ? clock(left) : S().gomoku.unlimited;
    });
    if (moveClockEl) {
      const deadline = Number(game.turnDeadlineUnixMs);
      const serverNow = Number(table.serverTimeUnixMs) + elapsed;
      moveClockEl.textContent = deadline > 0 && running ? S().gomoku.moveClock(clock(deadline - serverNow)) : "";
      moveClockEl.classList.toggle("low", deadline > 0 && deadline - serverNow < 10_000);
    }
  }

  function closedWhy(reason: CloseReason, words: string): string {
    const w = S().gomoku.closedWhy;
    switch (reason) {
      case CloseReason.ESCAPE:
        return w.escape;
      case CloseReason.LEFT:
        return w.left;
      case CloseReason.ABANDONED:
        return w.abandoned;
      case CloseReason.OPERATOR:
        // The operator's own words say who and why.
        return words ? S().gomoku.closedByOperator(words) : w.operator;
      default:
        return "";
    }
  }

  function status(t: Table): string {
    const g = S().gomoku;
    const game = t.game;
    if (t.status === TableStatus.CLOSED) {
      const why = closedWhy(t.closeReason, t.closedReason);
      return why ? g.closedBecause(why) : g.closed;
    }
    if (!game || game.phase === Phase.OVER) {
      if (t.status !== TableStatus.BETWEEN_GAMES || link) return g.gameOver;
      return t.leavingEscapes ? g.pairNext : g.playAgain;
    }
    const who = nameOf(game.toActSeat);
    const mine = myTurn();
    const color: Side = sideOf(game.toMove) || "black";
    switch (game.phase) {
      case Phase.SWAP_DECISION:
        return mine ? g.swapMine : g.swapOther(who);
      case Phase.PROPOSE_FIFTH:
        return mine ? g.proposeMine(proposals.length) : g.proposeOther(who);
      case Phase.CHOOSE_FIFTH:
        return mine ? g.chooseMine : g.chooseOther(who);
      default:
        if (mine && pending) return g.tapToConfirm(shown(pending));
        return mine ? g.yourMove(color) : g.otherMove(who, color);
    }
  }

  function playerCard(t: Table, seat: number) {
    const g = S().gomoku;
    const p = t.players[seat];
    const game = t.game;
    const c = sideOf(p?.color ?? Color.UNSPECIFIED);
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
      h(
        "span",
        { class: "who" },
        h("span", { class: "name", title: p?.playerId ?? "" }, nameOf(seat)),
        standing ? h("span", { class: "sub standing" }, standing) : null,
      ),
      p && isBot(p.playerId, p.profile) ? h("span", { class: "badge bot" }, BOT_MARK) : null,
      p?.wantsNextGame ? h("span", { class: "badge" }, g.ready) : null,
      p?.left ? h("span", { class: "badge" }, g.left) : null,
      h("span", { class: "clocks" }, move, clockEl),
    );
  }

  function result(t: Table) {
    const g = S().gomoku;
    const game = t.game;
    const r = game?.result;
    if (!game || !r || game.phase !== Phase.OVER) return null;
    const finished = t.finishedGames.find((f) => f.number === game.number);
    const seats = finished?.settlement?.seats ?? [];
    const me = mySeat();
    const headline = r.winnerSeat === undefined ? g.draw : me === undefined ? g.wins(nameOf(r.winnerSeat)) : r.winnerSeat === me ? g.youWin : g.youLose;
    const mine = seats.find((x) => x.playerId === t.players[me ?? -1]?.playerId);
    if (mine) {
      sessionStorage.setItem("gamehub.lastResult", g.lastResult(headline, signed(mine.pointsDelta), signed(mine.silverDelta)));
    }
    return h(
      "div",
      {
        class: `result ${r.winnerSeat === undefined ? "draw" : r.winnerSeat === me ? "win" : me === undefined ? "" : "loss"}`,
        id: "result",
        "data-reason": EndReason[r.reason],
      },
      h("div", { class: "headline" }, headline),
      h("div", { class: "description" }, resultSentence(r)),
      h(
        "table",
        { class: "scores" },
        h("tr", {}, h("th", {}, g.scorePlayer), h("th", {}, g.scorePoints), h("th", {}, g.scoreSilver), h("th", {}, g.scoreBalance)),
        ...t.players.map((p) => {
          const s = seats.find((x) => x.playerId === p.playerId);
          return h(
            "tr",
            { "data-player": p.playerId },
            h("td", { class: "name" }, nameOf(p.seat)),
            h("td", {}, signed(r.points[p.seat] ?? 0n)),
            h("td", { class: "silver-delta" }, s ? signed(s.silverDelta) : Number(t.stakes?.silverPerPoint ?? 0n) === 0 ? g.freeRoomShort : g.settling),
            h("td", { class: "balance" }, s ? num(s.balanceSilver) : ""),
          );
        }),
      ),
    );
  }

  function buttons(t: Table) {
    const g = S().gomoku;
    const game = t.game;
    if (spectator) return h("div", { class: "buttons", id: "actions" }, h("a", { class: "button", href: "#/" }, g.backToLobby));
    const playing = game && game.phase !== Phase.OVER && t.status === TableStatus.PLAYING;
    const me = mySeat();
    const list: (HTMLElement | null)[] = [];
    if (playing) {
      const offeredBy = game.drawOfferedBySeat;
      if (offeredBy !== undefined && offeredBy !== me) {
        list.push(
          h("span", { class: "question" }, g.offersDraw(nameOf(offeredBy))),
          h("button", { class: "primary", id: "accept-draw", onclick: () => void act(() => api.gomoku.answerDraw({ ...req(), accept: true })) }, g.acceptDraw),
          h("button", { id: "decline-draw", onclick: () => void act(() => api.gomoku.answerDraw({ ...req(), accept: false })) }, g.declineDraw),
        );
      }
      if (myTurn() && pending && (game.phase === Phase.PLAY || game.phase === Phase.SWAP_DECISION)) {
        const text = pending;
        list.push(h("button", { class: "primary", id: "confirm-move", onclick: () => placeAt(text) }, g.place));
      }
      if (t.ruleSet === RuleSet.RENJU_CLAIM && myTurn() && myColor() === Color.WHITE && game.phase === Phase.PLAY) {
        list.push(h("button", { id: "claim", onclick: () => void act(() => api.gomoku.claimForbidden(req())) }, g.claim));
      }
      if (game.phase === Phase.SWAP_DECISION && myTurn()) {
        list.push(h("button", { class: "primary", id: "swap", onclick: () => void act(() => api.gomoku.swap(req())) }, g.swap));
      }
      if (game.phase === Phase.PROPOSE_FIFTH && myTurn()) {
        list.push(
          h(
            "button",
            {
              class: "primary",
              id: "propose",
              disabled: proposals.length !== 2,
              onclick: () => void act(() => api.gomoku.proposeFifthMoves({ ...req(), points: proposals.map((text) => ({ text })) })),
            },
            g.propose,
          ),
        );
      }
      if (offeredBy === undefined) {
        list.push(h("button", { id: "offer-draw", onclick: () => void act(() => api.gomoku.offerDraw(req())) }, g.offerDraw));
      }
      list.push(
        h(
          "button",
          {
            class: "danger",
            id: "resign",
            onclick: async () => {
              if (await ask("resign", g.resign, g.resignAsk, g.resign, true)) void act(() => api.gomoku.resign(req()));
            },
          },
          g.resign,
        ),
      );
    } else if (t.status === TableStatus.BETWEEN_GAMES && !link) {
      const ready = me !== undefined && t.players[me]?.wantsNextGame;
      list.push(
        h(
          "button",
          {
            class: "primary",
            id: "next-game",
            disabled: ready,
            onclick: () => {
              const next = req();
              void act(() => untilSettled(() => api.gomoku.nextGame(next)));
            },
          },
          ready ? g.waitingOpponent : g.nextGame,
        ),
      );
    }
    const leaving = t.status === TableStatus.CLOSED;
    if (link && (leaving || t.status === TableStatus.BETWEEN_GAMES)) {
      // A tournament's game is one game: after it, back to the tournament (or on to the
      // next table), leaving this one.
      list.push(h("button", { class: "primary", id: "back-to-tournament", onclick: () => link.back() }, S().tournaments.backToTournament));
      return h("div", { class: "buttons", id: "actions" }, ...list);
    }
    list.push(
      h(
        "button",
        {
          id: "leave",
          onclick: async () => {
            if (!leaving) {
              // The server says when leaving is an escape: during a game, and between the
              // two games of a pair (docs/rules.md#games-in-pairs).
              // The browser's own confirmation here (the friends' tables' tests answer it
              // as a dialog); the forbidden point and resigning ask in the page.
              if (t.leavingEscapes && !confirm(playing ? g.leaveEscape : g.leavePairEscape)) return;
              if (!t.leavingEscapes && t.friendsTable && !confirm(g.leaveFriendsSeat)) return;
              try {
                await api.gomoku.leave(req());
              } catch (err) {
                toast(explain(err));
              }
            }
            location.hash = afterTable(tableId, t.friendsTable);
          },
        },
        leaving ? (t.friendsTable && friendsCode() ? g.backToFriends : g.backToLobby) : g.leave,
      ),
    );
    return h("div", { class: "buttons", id: "actions" }, ...list);
  }

  function moveList(t: Table) {
    const g = S().gomoku;
    const stones = t.game?.stones ?? [];
    const toggle = h(
      "button",
      {
        class: `link${showNumbers ? " toggled" : ""}`,
        id: "toggle-numbers",
        "aria-pressed": showNumbers ? "true" : "false",
        onclick: () => {
          showNumbers = !showNumbers;
          try {
            localStorage.setItem(NUMBERS_KEY, showNumbers ? "on" : "off");
          } catch {
            // private mode: the choice lasts for this page only
          }
          render();
        },
      },
      g.moveNumbers,
    );
    const list = h(
      "ol",
      { class: "moves", id: "moves" },
      ...stones.map((s) =>
        h(
          "li",
          { "data-ply": s.ply, "data-color": sideOf(s.color), "data-point": s.point?.text ?? "", class: s.ply === stones.length ? "last" : "" },
          g.moveEntry(s.ply, colorWord(s.color), shown(s.point?.text)),
        ),
      ),
    );
    return h(
      "section",
      { class: "gk-moves" },
      h("div", { class: "gk-moves-head" }, h("h3", {}, g.moves), toggle),
      stones.length ? list : h("p", { class: "sub", id: "moves" }, g.noMoves),
    );
  }

  function render() {
    const t = table;
    if (!t) return;
    const g = S().gomoku;
    if (!myTurn()) pending = null;
    // The board is redrawn only when what it shows changed: a point's element replaced
    // between a press and its release would swallow that tap or click.
    const board = boardSvg(t);
    const markup = board.outerHTML;
    if (markup !== boardMarkup) {
      boardMarkup = markup;
      mount(boardBox, board);
    }
    clockEls.length = 0;
    moveClockEl = null;
    const rules = RULE_SET_NAMES[t.ruleSet];
    const stakes = t.stakes;
    mount(
      head,
      h(
        "h2",
        {},
        g.title,
        spectator ? h("span", { class: "badge" }, g.spectating) : null,
        t.friendsTable ? h("span", { class: "badge" }, g.friendsTable) : null,
        h("span", { class: "sub room-game", "data-room-id": t.roomId }, `${ruleShort(t.ruleSet)} · ${g.gameN(t.game?.number ?? 1)}`),
      ),
      link?.bar,
      h("div", { class: "sub table-id" }, `${t.roomId} · ${g.tableId(t.tableId)}`),
      t.game?.opening ? h("div", { class: "sub", id: "opening" }, g.openingLine(openingName(t.game.opening))) : null,
    );
    const blackFirst = t.players[0]?.color === Color.BLACK ? [0, 1] : [1, 0];
    mount(players, ...blackFirst.map((seat) => playerCard(t, seat)));
    const statusLine = h(
        "div",
        {
          class: "status",
          id: "status",
          role: "status",
          "data-my-turn": myTurn() ? "true" : "false",
          "data-my-color": sideOf(myColor()),
          "data-phase": Phase[t.game?.phase ?? Phase.UNSPECIFIED],
          "data-game": t.game?.number ?? 0,
        },
        status(t),
      );
    const noticeBox = notice ? h("div", { class: "notice", id: "notice", role: "alert" }, notice) : null;
    // A finished game leads with its result; a running one with whose turn it is.
    const over = result(t);
    if (over) mount(turn, over, statusLine, noticeBox, buttons(t));
    else mount(turn, statusLine, noticeBox, buttons(t));
    mount(
      info,
      moveList(t),
      h(
        "div",
        { class: "rules" },
        RULES[rules] ?? rules,
        designatedOpening(t.designatedOpening),
        stakes
          ? h(
              "div",
              { class: "sub" },
              Number(stakes.silverPerPoint) > 0 ? g.stakes(String(stakes.pointsBase), num(stakes.silverPerPoint), stakes.rated) : g.freeRoom,
            )
          : null,
      ),
      connection === "reconnecting" ? h("div", { class: "notice" }, g.reconnecting) : null,
      connection === "stopped" ? h("div", { class: "notice" }, g.stopped) : null,
      logBox,
    );
    logBox.scrollTop = logBox.scrollHeight;
    const moves = info.querySelector("ol.moves");
    if (moves) moves.scrollTop = moves.scrollHeight;
    tick();
  }

  // A tournament's table (this tab was sent here from the tournament): the way back.
  const link = spectator ? null : tournamentLink(api, tableId, GameType.GOMOKU, () => api.gomoku.leave(req()));

  const feed = openFeed<Table, WatchResponse>({
    tableId: spectator ? `${tableId}.spectator` : tableId,
    read: async () => (await api.gomoku.getTable({ tableId })).table!,
    watch: (afterEventId, signal) => api.gomoku.watch({ tableId, afterEventId }, { signal }),
    snapshot: (item) => (item.item.case === "table" ? item.item.value : undefined),
    event: (item) => (item.item.case === "event" ? { id: item.item.value.eventId, line: describe(item.item.value) } : undefined),
    lastEventId: (t) => t.lastEventId,
    render: (t) => {
      if (t.game?.phase !== Phase.PROPOSE_FIFTH) proposals = [];
      // A tapped point that has since been taken is no longer pending.
      if (pending && t.game?.stones.some((s) => s.point?.text === pending)) pending = null;
      table = t;
      receivedAt = Date.now();
      // A friends' table's game table closed: back to the friends' table's lobby.
      if (t.status === TableStatus.CLOSED && t.friendsTable && !spectator) {
        const back = afterTable(tableId, true);
        if (back !== LOBBY_ROUTE) {
          toast(S().gomoku.tableClosedBack, "info", true);
          location.hash = back;
          return;
        }
      }
      sounds(t);
      render();
      link?.gameOver(t.status === TableStatus.BETWEEN_GAMES || t.status === TableStatus.CLOSED, t.status === TableStatus.CLOSED);
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
    const g = S().gomoku;
    const k = e.kind;
    switch (k.case) {
      case "gameStarted":
        return k.value.opening
          ? g.logStartOpening(e.gameNumber, openingName(k.value.opening), nameOf(k.value.blackSeat))
          : g.logStart(e.gameNumber, nameOf(k.value.blackSeat));
      case "stonePlaced":
        // The move list (棋谱) shows every stone; the log keeps the other events.
        return null;
      case "forbiddenClaimUpheld":
        return g.logClaimUpheld(nameOf(k.value.seat), forbiddenWord(k.value.kind));
      case "forbiddenClaimRejected":
        return g.logClaimRejected(nameOf(k.value.seat));
      case "drawOffered":
        return g.logDrawOffered(nameOf(k.value.seat));
      case "drawDeclined":
        return g.logDrawDeclined(nameOf(k.value.seat));
      case "drawLapsed":
        return g.logDrawLapsed;
      case "swapped":
        return g.logSwapped(nameOf(k.value.seat));
      case "fifthProposed":
        return g.logProposed(nameOf(k.value.seat), k.value.points.map((p) => shown(p.text)).join(g.and));
      case "fifthChosen":
        return g.logChosen(nameOf(k.value.seat), shown(k.value.point?.text), shown(k.value.rejected?.text));
      case "gameOver":
        return k.value.result
          ? g.logGameOver(resultSentence(k.value.result), k.value.result.winnerSeat === undefined ? null : nameOf(k.value.result.winnerSeat))
          : g.gameOver;
      case "nextGameRequested":
        return g.logNextGame(nameOf(k.value.seat));
      case "playerLeft":
        return g.logLeft(nameOf(k.value.seat), k.value.escaped);
      case "tableClosed":
        return g.logClosed(closedWhy(k.value.closeReason, k.value.reason) || k.value.reason);
      case "gameSettled":
        window.dispatchEvent(new Event("gamehub:settled"));
        return g.logSettled(
          k.value.number,
          (k.value.settlement?.seats ?? []).map((s) => g.logSettledSeat(nameOfId(s.playerId), signed(s.silverDelta))).join(g.and),
        );
      default:
        return null;
    }
  }

  const timer = setInterval(tick, 250);
  return {
    stop: () => {
      clearInterval(timer);
      closeDialog?.();
      feed.stop();
      link?.stop();
    },
  };
}
