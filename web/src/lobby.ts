// The lobby: the tournaments (one line with how many are open, leading to their list),
// the rooms (those the player can play now, then those that need more
// silver, each saying why and how silver is had), the queue (shown in the room card
// that was pressed and in a bar kept in view, with Cancel), the player's account (name,
// silver, today's caps, points, titles, rating, and what those mean), joining a
// friends' table by its code, the leaderboards and a way to watch any table.
//
// A refusal is shown once, beside the control that caused it: a room's under that
// room, the name's under the name field, a code's under the code field.

import { follow, requestId, type Api } from "./api.js";
import { explain, explainFriends, fieldRefusal, friendsWords } from "./errors.js";
import { RULES, designatedOpening } from "./gomoku.js";
import { S } from "./i18n/index.js";
import { codeProblem, displayName, nameProblem, normaliseCode, rankWords } from "./names.js";
import { TOURNAMENTS_ROUTE, friendsCode, friendsRoute, rememberFriends, tableRoute, tablesRoute } from "./routes.js";
import { sound } from "./settings.js";
import { clock, h, mount, num, toast } from "./ui.js";
import { GameType } from "./gen/gamehub/common/v1/common_pb.js";
import { Board, Refusal, type Account, type LeaderboardRow } from "./gen/gamehub/ledger/v1/ledger_pb.js";
import { FriendsTableState, TicketState, type Room, type Seat, type Ticket } from "./gen/gamehub/matchmaking/v1/matchmaking_pb.js";
import { State as TournamentState } from "./gen/gamehub/tournament/v1/tournament_pb.js";

const TICKET_KEY = "gamehub.ticket";

export interface LobbyView {
  stop: () => void;
}

/** Makes the lobby follow `ticketId`, a live ticket of the player's (found on load). */
export function rememberTicket(ticketId: string): void {
  sessionStorage.setItem(TICKET_KEY, ticketId);
}

/** A room's name in the page's language (the server's name for a room the client does not know). */
export function roomName(room: Pick<Room, "roomId" | "displayName">): string {
  return S().lobby.roomNames[room.roomId] ?? room.displayName;
}

/**
 * The 18 titles (称号) and the points that give them (docs/rules.md#points-and-titles):
 * the server's names, the same in every language.
 */
const TITLES: [string, string][] = [
  ["超轻蝇量级", "≤ 1,000"],
  ["次蝇量级", "1,001–3,000"],
  ["蝇量级", "3,001–6,000"],
  ["次雏量级", "6,001–12,000"],
  ["雏量级", "12,001–24,000"],
  ["次羽量级", "24,001–48,000"],
  ["羽量级", "48,001–96,000"],
  ["次轻量级", "96,001–192,000"],
  ["轻量级", "192,001–384,000"],
  ["次沉量级", "384,001–768,000"],
  ["沉量级", "768,001–1,536,000"],
  ["次中量级", "1,536,001–3,072,000"],
  ["中量级", "3,072,001–6,144,000"],
  ["超中量级", "6,144,001–18,432,000"],
  ["轻重量级", "18,432,001–55,296,000"],
  ["巡航级", "55,296,001–165,888,000"],
  ["重量级", "165,888,001–497,664,000"],
  ["超重量级", "≥ 497,664,001"],
];

/** "Seated with 张三 and 李四.": the other players of a seat, by name. */
function seatedWith(seat: Seat, me: string): string {
  const others = seat.players.flatMap((id, i) => (id === me ? [] : [displayName(id, seat.profiles[i])]));
  return others.length ? S().lobby.seatedWith(others.join(S().common.and)) : S().lobby.seated;
}

/** Why a room cannot be played now, or null: the day's cap, else too little silver. */
export function lockReason(room: Room, account: Account | undefined): { kind: "cap" | "silver"; text: string } | null {
  if (!account) return null;
  const t = account.today;
  if (t && ((t.winCapSilver > 0n && t.remainingWinSilver <= 0n) || (t.lossCapSilver > 0n && t.remainingLossSilver <= 0n))) {
    return { kind: "cap", text: S().lobby.capReached };
  }
  const free = Number(room.stakes?.silverPerPoint ?? 0n) === 0;
  const need = room.stakes?.minBalanceSilver ?? 0n;
  if (!free && account.balanceSilver < need) return { kind: "silver", text: S().lobby.needSilver(num(need), num(account.balanceSilver)) };
  return null;
}

function isLive(t: Ticket) {
  return t.state === TicketState.WAITING || t.state === TicketState.MATCHING;
}

export function lobby(api: Api, root: HTMLElement, onAccount: (a: Account) => void): LobbyView {
  const L = S().lobby;
  let rooms: Room[] = [];
  let account: Account | undefined;
  let ticket: Ticket | undefined;
  let ticketStream: { stop: () => void } | null = null;
  let waitingSince = 0;
  let board = Board.GOMOKU_POINTS;
  let boardRows: LeaderboardRow[] = [];
  /** A refusal per room, shown in that room's card until the next action. */
  const problems = new Map<string, string>();
  let stopped = false;

  const accountBox = h("section", { class: "account", id: "account" });
  const nameBox = nameForm();
  const friendsBox = joinByCode();
  const boardBox = h("section", { class: "leaderboard", id: "leaderboard" });
  const queueBox = h("section", { class: "queue", id: "queue", "aria-live": "polite" });
  const roomsBox = h("section", { class: "rooms", id: "rooms" }, h("p", { class: "loading" }, S().common.loading));
  // The tournaments (比赛): one line above the rooms, with how many are open and running.
  const tournamentsLine = h("span", { class: "sub", id: "tournaments-count" }, S().tournaments.lobbyLine(0, 0));
  const tournamentsBox = api.tournaments
    ? h(
        "a",
        { class: "tn-entry", id: "open-tournaments", href: TOURNAMENTS_ROUTE },
        h("span", { class: "tn-entry-icon", "aria-hidden": "true" }, "★"),
        h("span", { class: "tn-entry-text" }, h("strong", {}, S().tournaments.lobbyButton), tournamentsLine),
        h("span", { class: "tn-entry-go", "aria-hidden": "true" }, "→"),
      )
    : null;
  const watchInput = h("input", { id: "watch-table", placeholder: L.watchPlaceholder, spellcheck: "false", "aria-label": L.watchLabel });
  const watchBox = h(
    "section",
    { class: "watch" },
    h("h3", {}, L.watchTitle),
    h(
      "form",
      {
        onsubmit: (e: Event) => {
          e.preventDefault();
          const id = watchInput.value.trim();
          if (!id) return;
          location.hash = `#/watch/${id.startsWith("ddz-") ? "doudizhu" : "gomoku"}/${id}`;
        },
      },
      watchInput,
      h("button", { type: "submit" }, L.watch),
    ),
    h("div", { class: "sub" }, L.watchHint),
  );
  mount(
    root,
    h(
      "div",
      { class: "lobby" },
      h("div", { class: "lobby-main" }, tournamentsBox, roomsBox),
      h("div", { class: "lobby-side" }, h("div", { class: "account-card" }, accountBox, nameBox), friendsBox, boardBox, watchBox),
    ),
    queueBox,
  );

  /**
   * The name (昵称) others see. Built once, apart from the account that is redrawn every
   * few seconds, so typing is never lost; a refusal shows under the field, only there.
   */
  function nameForm() {
    const input = h("input", { id: "name-input", placeholder: L.namePlaceholder, autocomplete: "nickname", "aria-label": L.nameLabel });
    const problem = h("div", { class: "field-problem", id: "name-problem", role: "alert" });
    const save = async () => {
      const name = input.value;
      const wrong = name === "" ? null : nameProblem(name);
      if (wrong) {
        problem.textContent = wrong;
        return;
      }
      try {
        const answer = await api.ledger.setName({ name });
        problem.textContent = "";
        input.value = answer.name;
        input.dataset.saved = answer.name;
        toast(answer.name ? L.nameSaved(answer.name) : L.nameCleared, "info");
        if (account) {
          account.name = answer.name;
          renderAccount();
        }
      } catch (err) {
        problem.textContent = fieldRefusal(err, "name") ?? explain(err);
      }
    };
    return h(
      "form",
      {
        class: "name-form",
        id: "name-form",
        onsubmit: (e: Event) => {
          e.preventDefault();
          void save();
        },
      },
      h("label", { for: "name-input" }, L.nameLabel),
      h("div", { class: "field" }, input, h("button", { type: "submit", id: "save-name" }, L.save)),
      problem,
      h("div", { class: "sub" }, L.nameHint),
    );
  }

  /** Joining a friends' table by its code: sit down, else look at it (a full table can be watched). */
  function joinByCode() {
    const mine = friendsCode();
    const input = h("input", { id: "join-code", placeholder: "K7QX2M", spellcheck: "false", autocomplete: "off", "aria-label": L.codeLabel });
    const problem = h("div", { class: "field-problem", id: "join-problem", role: "alert" });
    const join = async () => {
      const wrong = codeProblem(input.value);
      if (wrong) {
        problem.textContent = wrong;
        return;
      }
      const code = normaliseCode(input.value);
      try {
        const answer = await api.matchmaking.joinFriendsTable({ code });
        // A player who sat at a table when it closed is answered the closed table.
        if (answer.table?.state === FriendsTableState.CLOSED) {
          problem.textContent = friendsWords().table_closed!;
          return;
        }
        problem.textContent = "";
        rememberFriends(answer.table?.code ?? code);
        location.hash = friendsRoute(answer.table?.code ?? code);
      } catch (err) {
        problem.textContent = explainFriends(err);
      }
    };
    return h(
      "section",
      { class: "join-friends" },
      h("h3", {}, L.joinTitle),
      h(
        "form",
        {
          onsubmit: (e: Event) => {
            e.preventDefault();
            void join();
          },
        },
        input,
        h("button", { type: "submit", id: "join-by-code" }, L.joinButton),
      ),
      problem,
      h("div", { class: "sub" }, L.joinHint),
      mine ? h("a", { class: "button", id: "back-to-friends", href: friendsRoute(mine) }, L.backToFriends(mine)) : null,
    );
  }

  /** What rating, rank, points, titles and silver mean (docs/rules.md), one click from the account. */
  function help() {
    return h(
      "details",
      { class: "help", id: "rating-help" },
      h("summary", { id: "rating-help-open" }, L.helpOpen),
      h(
        "div",
        { class: "help-body" },
        h("h4", {}, L.helpTitle),
        h("p", { "data-help": "rating" }, L.helpRating),
        h("p", { "data-help": "rank" }, L.helpRank),
        h("p", { "data-help": "points" }, L.helpPoints),
        h("p", { "data-help": "titles" }, L.helpTitles),
        h("ol", { class: "titles", id: "titles" }, ...TITLES.map(([title, points]) => h("li", {}, h("span", {}, title), h("span", { class: "sub" }, points)))),
        h("p", { "data-help": "silver" }, L.helpSilver),
      ),
    );
  }

  function renderAccount() {
    if (!account) return;
    const a = account;
    onAccount(a);
    const today = a.today;
    const standing = (game: GameType) => a.standings.find((s) => s.gameType === game);
    const gomoku = standing(GameType.GOMOKU);
    const ddz = standing(GameType.DOUDIZHU);
    const last = sessionStorage.getItem("gamehub.lastResult");
    const open = accountBox.querySelector<HTMLDetailsElement>("#rating-help")?.open ?? false;
    mount(
      accountBox,
      h("h3", { id: "account-name", title: a.playerId }, displayName(a.playerId, a)),
      a.name ? h("div", { class: "sub", id: "account-id" }, a.playerId) : null,
      h("div", { class: "silver", id: "silver", "data-silver": String(a.balanceSilver) }, h("span", { class: "coin" }), num(a.balanceSilver), h("span", { class: "unit" }, L.silverUnit)),
      last ? h("div", { class: "last-result", id: "last-result" }, last) : null,
      today
        ? h(
            "dl",
            { class: "caps" },
            h("dt", {}, L.today),
            h("dd", {}, L.todayLine(num(today.wonSilver), num(today.lostSilver))),
            h("dt", {}, L.mayWin),
            h("dd", { id: "remaining-win" }, L.ofCap(num(today.remainingWinSilver), num(today.winCapSilver))),
            h("dt", {}, L.mayLose),
            h("dd", { id: "remaining-loss" }, L.ofCap(num(today.remainingLossSilver), num(today.lossCapSilver))),
          )
        : null,
      h(
        "dl",
        { class: "standings" },
        h("dt", {}, L.gomoku),
        h("dd", {}, L.standing(num(gomoku?.points ?? 0n), gomoku?.title?.name ?? "", L.record(gomoku?.wins ?? 0n, gomoku?.losses ?? 0n, gomoku?.draws ?? 0n))),
        h("dt", {}, L.rating),
        h("dd", { id: "rating" }, L.ratingLine(String(a.gomokuRating?.rating ?? 3000n), rankWords(a.gomokuRating?.rankName ?? ""))),
        h("dt", {}, L.doudizhu),
        h("dd", {}, L.standing(num(ddz?.points ?? 0n), ddz?.title?.name ?? "", L.record(ddz?.wins ?? 0n, ddz?.losses ?? 0n, null))),
      ),
      help(),
    );
    const details = accountBox.querySelector<HTMLDetailsElement>("#rating-help");
    if (details) details.open = open;
  }

  /** The waiting state inside the card of the room whose queue the player is in. */
  function waitLine(t: Ticket) {
    return h(
      "div",
      { class: "room-wait", "data-state": TicketState[t.state] },
      h("span", { class: "spinner" }),
      h("span", { class: "text" }, queueText(t, true)),
      h("button", { "data-action": "cancel", onclick: () => void cancel() }, t.cancelRequested ? L.cancelling : L.cancel),
    );
  }

  function roomCard(room: Room) {
    const stakes = room.stakes;
    const free = Number(stakes?.silverPerPoint ?? 0n) === 0;
    const gomoku = room.gameType === GameType.GOMOKU;
    const tc = room.timeControl;
    const queued = ticket !== undefined && isLive(ticket);
    const mine = queued && ticket!.roomId === room.roomId;
    const locked = lockReason(room, account);
    const problem = problems.get(room.roomId);
    return h(
      "article",
      {
        class: `room ${gomoku ? "gomoku" : "doudizhu"}${locked ? " locked" : ""}${free ? " free" : ""}`,
        "data-room": room.roomId,
        "data-playable": locked ? "false" : "true",
        "data-queued": mine ? "true" : null,
      },
      h("div", { class: "room-icon", "aria-hidden": "true" }, gomoku ? "●○" : "♠♥"),
      h("h4", {}, roomName(room)),
      h("div", { class: "rules" }, gomoku ? (RULES[room.ruleSet] ?? room.ruleSet) : (L.ddzRules[room.ruleSet || "classic"] ?? room.ruleSet)),
      gomoku && room.designatedOpening !== "" ? h("div", { class: "rules opening" }, designatedOpening(room.designatedOpening)) : null,
      h(
        "div",
        { class: "facts" },
        h("span", {}, gomoku ? L.perMove(clock(Number(tc?.moveTimeMs ?? 0n)), clock(Number(tc?.totalTimeMs ?? 0n))) : L.perTurn(clock(Number(tc?.turnTimeMs ?? 0n)))),
        h("span", {}, free ? L.freeFacts : L.stakes(String(stakes?.pointsBase ?? 1), num(stakes?.silverPerPoint ?? 0n))),
        free ? null : h("span", {}, L.minSilver(num(stakes?.minBalanceSilver ?? 0n))),
        stakes?.rated ? h("span", {}, L.rated) : null,
        h("span", {}, L.waitingCount(Number(room.waitingPlayers))),
      ),
      locked
        ? h(
            "div",
            { class: "lock", "data-locked": locked.kind },
            h("div", { class: "lock-reason" }, locked.text),
            locked.kind === "silver" ? h("div", { class: "sub" }, L.howToGetSilver) : null,
          )
        : null,
      mine ? waitLine(ticket!) : null,
      problem ? h("div", { class: "field-problem room-problem", role: "alert" }, problem) : null,
      h(
        "div",
        { class: "room-buttons" },
        mine
          ? null
          : h("button", { class: "primary", "data-action": "play", disabled: queued || locked !== null, onclick: () => void enqueue(room) }, L.play),
        h("button", { "data-action": "friends", disabled: queued || locked !== null, onclick: () => void openFriends(room) }, L.withFriends),
        h("a", { class: "button", "data-action": "tables", href: tablesRoute(room.roomId) }, L.watch),
      ),
    );
  }

  function renderRooms() {
    if (stopped || rooms.length === 0) return;
    // Playable first: free rooms, then the paid rooms the player can afford; then the
    // locked ones. Within each, the server's order.
    const playable = rooms.filter((r) => !lockReason(r, account));
    const rank = (r: Room) => (Number(r.stakes?.silverPerPoint ?? 0n) === 0 ? 0 : 1);
    playable.sort((a, b) => rank(a) - rank(b));
    const locked = rooms.filter((r) => lockReason(r, account));
    mount(
      roomsBox,
      playable.length ? h("h3", {}, L.roomsPlayable) : null,
      playable.length ? h("div", { class: "room-grid", id: "rooms-playable" }, ...playable.map(roomCard)) : null,
      locked.length ? h("h3", {}, L.roomsLocked) : null,
      locked.length ? h("div", { class: "room-grid", id: "rooms-locked" }, ...locked.map(roomCard)) : null,
    );
  }

  function renderBoard() {
    const boards: { board: Board; label: string }[] = [
      { board: Board.GOMOKU_POINTS, label: L.boardGomokuPoints },
      { board: Board.GOMOKU_RATING, label: L.boardGomokuRating },
      { board: Board.DOUDIZHU_POINTS, label: L.boardDoudizhuPoints },
    ];
    mount(
      boardBox,
      h("h3", {}, L.leaderboard),
      h(
        "div",
        { class: "board-tabs" },
        ...boards.map((b) =>
          h(
            "button",
            {
              class: `link${b.board === board ? " on" : ""}`,
              "data-board": Board[b.board],
              onclick: () => {
                board = b.board;
                void loadBoard();
              },
            },
            b.label,
          ),
        ),
      ),
      boardRows.length === 0
        ? h("div", { class: "sub" }, L.boardEmpty)
        : h(
            "table",
            { class: "scores board-rows" },
            ...boardRows.map((r) =>
              h(
                "tr",
                { "data-player": r.playerId, class: r.playerId === api.player ? "me" : "" },
                h("td", {}, `${r.rank}`),
                h("td", { class: "name", title: r.playerId }, displayName(r.playerId, r)),
                h("td", {}, num(r.value)),
                h("td", { class: "sub" }, board === Board.GOMOKU_RATING ? rankWords(r.label) : r.label),
              ),
            ),
          ),
    );
  }

  async function loadBoard() {
    try {
      boardRows = (await api.ledger.getLeaderboard({ board, limit: 10 })).rows;
    } catch {
      boardRows = [];
    }
    if (!stopped) renderBoard();
  }

  function roomNameOf(roomId: string): string {
    const room = rooms.find((r) => r.roomId === roomId);
    return room ? roomName(room) : (L.roomNames[roomId] ?? roomId);
  }

  function refusalText(t: Ticket): string {
    const codes = S().errors.codes;
    const byCode: Partial<Record<Refusal, string | undefined>> = {
      [Refusal.INSUFFICIENT_BALANCE]: codes.insufficient_balance,
      [Refusal.DAILY_WIN_CAP]: codes.daily_win_cap,
      [Refusal.DAILY_LOSS_CAP]: codes.daily_loss_cap,
    };
    return byCode[t.refusal] ?? L.queueRefused;
  }

  /** The ticket in words; `inCard` leaves out the room (the card names it). */
  function queueText(t: Ticket, inCard = false): string {
    const waited = waitingSince ? Date.now() - waitingSince : 0;
    switch (t.state) {
      case TicketState.WAITING: {
        const [position, of] = [Number(t.position), Number(t.waitingPlayers)];
        const parts = [inCard ? L.queuePosition(position, of) : L.queueWaiting(roomNameOf(t.roomId), position, of)];
        if (Number(t.estimatedWaitMs) > 0) parts.push(L.queueLeft(clock(Number(t.estimatedWaitMs) - waited)));
        parts.push(L.queueWaited(clock(waited)));
        return parts.join(" · ");
      }
      case TicketState.MATCHING:
        return L.queueMatching;
      case TicketState.SEATED:
        return L.queueSeated;
      case TicketState.REFUSED:
      case TicketState.FAILED:
        return refusalText(t);
      case TicketState.EXPIRED:
        return L.queueExpired;
      default:
        return L.queueCancelled;
    }
  }

  /** The bar kept in view while the player waits (and the ticket's end, until OK). */
  function renderQueue() {
    if (stopped) return;
    if (!ticket) {
      mount(queueBox);
      return;
    }
    const t = ticket;
    const live = isLive(t);
    const text = queueText(t);
    mount(
      queueBox,
      h(
        "div",
        { class: `ticket ${live ? "live" : "ended"}`, id: "ticket", "data-state": TicketState[t.state], "data-room": t.roomId },
        live ? h("span", { class: "spinner" }) : null,
        h("span", { class: "text" }, text),
        live
          ? h("button", { id: "cancel", onclick: () => void cancel() }, t.cancelRequested ? L.cancelling : L.cancel)
          : h(
              "button",
              {
                id: "ticket-ok",
                onclick: () => {
                  ticket = undefined;
                  renderQueue();
                  renderRooms();
                },
              },
              L.ok,
            ),
      ),
    );
    const cardText = roomsBox.querySelector(`[data-room="${CSS.escape(t.roomId)}"] .room-wait .text`);
    if (cardText) cardText.textContent = queueText(t, true);
  }

  function onTicket(t: Ticket | undefined) {
    if (!t || stopped) return;
    ticket = t;
    if (t.state === TicketState.SEATED && t.seat) {
      sessionStorage.removeItem(TICKET_KEY);
      ticketStream?.stop();
      sound("turn");
      toast(seatedWith(t.seat, api.player), "info", true);
      location.hash = tableRoute(t.seat.gameType, t.seat.tableId);
      return;
    }
    if (!isLive(t)) {
      sessionStorage.removeItem(TICKET_KEY);
      ticketStream?.stop();
    }
    renderQueue();
    renderRooms();
  }

  function watchTicket(ticketId: string) {
    ticketStream?.stop();
    waitingSince = Date.now();
    ticketStream = follow({
      open: (_after, signal) => api.matchmaking.watchTicket({ ticketId }, { signal }),
      eventId: () => null,
      onItem: (item) => onTicket(item.ticket),
      onState: (state, err) => {
        if (state === "stopped" && err) {
          sessionStorage.removeItem(TICKET_KEY);
          if (!stopped) toast(explain(err));
        }
      },
    });
  }

  /** Shows a refusal in the room's card (only there) and redraws the rooms. */
  function refused(room: Room, text: string) {
    problems.set(room.roomId, text);
    renderRooms();
  }

  async function enqueue(room: Room) {
    problems.clear();
    try {
      sessionStorage.removeItem("gamehub.lastResult");
      const answer = await api.matchmaking.enqueue({ roomId: room.roomId, requestId: requestId() });
      const t = answer.ticket!;
      sessionStorage.setItem(TICKET_KEY, t.ticketId);
      onTicket(t);
      if (isLive(t)) watchTicket(t.ticketId);
    } catch (err) {
      refused(room, explain(err));
    }
  }

  async function openFriends(room: Room) {
    problems.clear();
    try {
      const answer = await api.matchmaking.openFriendsTable({ roomId: room.roomId, requestId: requestId() });
      const code = answer.table?.code;
      if (!code) return;
      rememberFriends(code);
      location.hash = friendsRoute(code);
    } catch (err) {
      refused(room, explainFriends(err));
    }
  }

  async function cancel() {
    if (!ticket) return;
    const roomId = ticket.roomId;
    try {
      onTicket((await api.matchmaking.cancelTicket({ ticketId: ticket.ticketId })).ticket);
    } catch (err) {
      const room = rooms.find((r) => r.roomId === roomId);
      if (room) refused(room, explain(err));
      else toast(explain(err));
    }
  }

  /** How many tournaments are open and running, for the lobby's line. */
  async function countTournaments() {
    const client = api.tournaments;
    if (!client) return;
    try {
      const [open, running] = await Promise.all([
        client.listTournaments({ state: TournamentState.REGISTERING, pageSize: 100 }),
        client.listTournaments({ state: TournamentState.RUNNING, pageSize: 100 }),
      ]);
      if (!stopped) tournamentsLine.textContent = S().tournaments.lobbyLine(open.tournaments.length, running.tournaments.length);
    } catch {
      // the line keeps what it said
    }
  }

  async function load() {
    void countTournaments();
    try {
      const [roomList, accountAnswer] = await Promise.all([api.matchmaking.listRooms({}), api.ledger.getAccount({})]);
      if (stopped) return;
      rooms = roomList.rooms;
      account = accountAnswer.account;
      renderAccount();
      renderRooms();
      const input = nameBox.querySelector<HTMLInputElement>("#name-input");
      // The stored name fills the field, unless the player is typing a new one.
      if (input && account && document.activeElement !== input && input.value === (input.dataset.saved ?? "")) {
        input.value = account.name;
        input.dataset.saved = account.name;
      }
    } catch (err) {
      if (!stopped) mount(roomsBox, h("div", { class: "notice", role: "alert" }, explain(err)));
    }
    await loadBoard();
  }

  void load();
  const pending = sessionStorage.getItem(TICKET_KEY);
  if (pending) watchTicket(pending);
  const timer = setInterval(() => {
    if (ticket && isLive(ticket)) renderQueue();
  }, 1000);
  const refresh = setInterval(() => void load(), 15000);
  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
      clearInterval(refresh);
      ticketStream?.stop();
    },
  };
}
