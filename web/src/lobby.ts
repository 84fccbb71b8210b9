// The lobby: the player's account (name, silver, today's caps, points, titles, rating),
// the rooms with their rules and stakes (play from the queue, play with friends, watch
// the room's tables), the queue, joining a friends' table by its code, the leaderboards
// and a way to watch any table.

import { explain, follow, requestId, type Api } from "./api.js";
import { FRIENDS_WORDS, explainFriends, fieldRefusal } from "./errors.js";
import { RULES, designatedOpening } from "./gomoku.js";
import { codeProblem, displayName, normaliseCode } from "./names.js";
import { friendsCode, friendsRoute, rememberFriends, tableRoute, tablesRoute } from "./routes.js";
import { clock, h, mount, num, toast } from "./ui.js";
import { GameType } from "./gen/gamehub/common/v1/common_pb.js";
import { Board, type Account, type LeaderboardRow } from "./gen/gamehub/ledger/v1/ledger_pb.js";
import { FriendsTableState, TicketState, type Room, type Seat, type Ticket } from "./gen/gamehub/matchmaking/v1/matchmaking_pb.js";

const TICKET_KEY = "gamehub.ticket";

export interface LobbyView {
  stop: () => void;
}

/** Makes the lobby follow `ticketId`, a live ticket of the player's (found on load). */
export function rememberTicket(ticketId: string): void {
  sessionStorage.setItem(TICKET_KEY, ticketId);
}

const BOARDS: { board: Board; label: string }[] = [
  { board: Board.GOMOKU_POINTS, label: "Gomoku points" },
  { board: Board.GOMOKU_RATING, label: "Gomoku rating 段位" },
  { board: Board.DOUDIZHU_POINTS, label: "Dou Dizhu points" },
];

/** "Seated with 张三 and 李四.": the other players of a seat, by name. */
function seatedWith(seat: Seat, me: string): string {
  const others = seat.players.flatMap((id, i) => (id === me ? [] : [displayName(id, seat.profiles[i])]));
  return others.length ? `Seated with ${others.join(" and ")}.` : "Seated.";
}

export function lobby(api: Api, root: HTMLElement, onAccount: (a: Account) => void): LobbyView {
  let rooms: Room[] = [];
  let account: Account | undefined;
  let ticket: Ticket | undefined;
  let ticketStream: { stop: () => void } | null = null;
  let waitingSince = 0;
  let board = Board.GOMOKU_POINTS;
  let boardRows: LeaderboardRow[] = [];

  const accountBox = h("section", { class: "account", id: "account" });
  const nameBox = nameForm();
  const friendsBox = joinByCode();
  const boardBox = h("section", { class: "leaderboard", id: "leaderboard" });
  const queueBox = h("section", { class: "queue", id: "queue" });
  const roomsBox = h("section", { class: "rooms", id: "rooms" });
  const watchInput = h("input", { id: "watch-table", placeholder: "gt-… or ddz-…", spellcheck: "false", "aria-label": "table id" });
  const watchBox = h(
    "section",
    { class: "watch" },
    h("h3", {}, "Watch a table"),
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
      h("button", { type: "submit" }, "Watch"),
    ),
    h("div", { class: "sub" }, "Spectators see the Gomoku board and every Dou Dizhu seat's card count, never a hand."),
  );
  mount(
    root,
    h(
      "div",
      { class: "lobby" },
      h("div", { class: "lobby-side" }, h("div", { class: "account-card" }, accountBox, nameBox), friendsBox, boardBox, watchBox),
      h("div", { class: "lobby-main" }, queueBox, roomsBox),
    ),
  );

  /**
   * The name (昵称) others see. Built once, apart from the account that is redrawn every
   * few seconds, so typing is never lost; the server's refusal shows under the field.
   */
  function nameForm() {
    const input = h("input", { id: "name-input", placeholder: "a name others see", autocomplete: "nickname", "aria-label": "name" });
    const problem = h("div", { class: "field-problem", id: "name-problem", role: "alert" });
    const save = async () => {
      const name = input.value;
      try {
        const answer = await api.ledger.setName({ name });
        problem.textContent = "";
        input.value = answer.name;
        input.dataset.saved = answer.name;
        toast(answer.name ? `Your name is now ${answer.name}.` : "Name cleared: others see your id.", "info");
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
      h("label", { for: "name-input" }, "Name 昵称"),
      h("div", { class: "field" }, input, h("button", { type: "submit", id: "save-name" }, "Save")),
      problem,
      h("div", { class: "sub" }, "1–12 characters, any script or emoji. Empty: you are shown by your id."),
    );
  }

  /** Joining a friends' table by its code: sit down, else look at it (a full table can be watched). */
  function joinByCode() {
    const mine = friendsCode();
    const input = h("input", { id: "join-code", placeholder: "K7QX2M", spellcheck: "false", autocomplete: "off", "aria-label": "friends' table code" });
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
          problem.textContent = FRIENDS_WORDS.table_closed!;
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
      h("h3", {}, "Join a friends' table 好友房"),
      h(
        "form",
        {
          onsubmit: (e: Event) => {
            e.preventDefault();
            void join();
          },
        },
        input,
        h("button", { type: "submit", id: "join-by-code" }, "Join"),
      ),
      problem,
      h("div", { class: "sub" }, "The 6-character code a friend shares; or open the link it sends."),
      mine ? h("a", { class: "button", id: "back-to-friends", href: friendsRoute(mine) }, `Back to your table ${mine}`) : null,
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
    mount(
      accountBox,
      h("h3", { id: "account-name", title: a.playerId }, displayName(a.playerId, a)),
      a.name ? h("div", { class: "sub", id: "account-id" }, a.playerId) : null,
      h("div", { class: "silver", id: "silver", "data-silver": String(a.balanceSilver) }, h("span", { class: "coin" }), num(a.balanceSilver), h("span", { class: "unit" }, " silver 银子")),
      last ? h("div", { class: "last-result", id: "last-result" }, last) : null,
      today
        ? h(
            "dl",
            { class: "caps" },
            h("dt", {}, "Today"),
            h("dd", {}, `won ${num(today.wonSilver)}, lost ${num(today.lostSilver)}`),
            h("dt", {}, "May still win"),
            h("dd", { id: "remaining-win" }, `${num(today.remainingWinSilver)} of ${num(today.winCapSilver)}`),
            h("dt", {}, "May still lose"),
            h("dd", { id: "remaining-loss" }, `${num(today.remainingLossSilver)} of ${num(today.lossCapSilver)}`),
          )
        : null,
      h(
        "dl",
        { class: "standings" },
        h("dt", {}, "Gomoku"),
        h("dd", {}, `${num(gomoku?.points ?? 0n)} points · ${gomoku?.title?.name ?? ""} · ${gomoku?.wins ?? 0n}W ${gomoku?.losses ?? 0n}L ${gomoku?.draws ?? 0n}D`),
        h("dt", {}, "Rating 段位"),
        h("dd", {}, `${a.gomokuRating?.rating ?? 3000n} · ${a.gomokuRating?.rankName ?? ""}`),
        h("dt", {}, "Dou Dizhu"),
        h("dd", {}, `${num(ddz?.points ?? 0n)} points · ${ddz?.title?.name ?? ""} · ${ddz?.wins ?? 0n}W ${ddz?.losses ?? 0n}L`),
      ),
    );
  }

  function roomCard(room: Room) {
    const stakes = room.stakes;
    const free = Number(stakes?.silverPerPoint ?? 0n) === 0;
    const gomoku = room.gameType === GameType.GOMOKU;
    const tc = room.timeControl;
    const queued = ticket !== undefined && isLive(ticket);
    const tooPoor = !free && account !== undefined && account.balanceSilver < (stakes?.minBalanceSilver ?? 0n);
    return h(
      "article",
      { class: `room ${gomoku ? "gomoku" : "doudizhu"}`, "data-room": room.roomId },
      h("div", { class: "room-icon" }, gomoku ? "●○" : "🂡"),
      h("h4", {}, room.displayName),
      h("div", { class: "rules" }, gomoku ? (RULES[room.ruleSet] ?? room.ruleSet) : "Classic Dou Dizhu (叫分): bid 1, 2 or 3; bombs and the rocket double the stakes."),
      gomoku && room.designatedOpening !== "" ? h("div", { class: "rules opening" }, designatedOpening(room.designatedOpening)) : null,
      h(
        "div",
        { class: "facts" },
        h("span", {}, gomoku ? `${clock(Number(tc?.moveTimeMs ?? 0n))} a move · ${clock(Number(tc?.totalTimeMs ?? 0n))} in all` : `${clock(Number(tc?.turnTimeMs ?? 0n))} a turn`),
        h("span", {}, free ? "free: points only" : `base ${stakes?.pointsBase} · ${num(stakes?.silverPerPoint ?? 0n)} silver/point`),
        free ? null : h("span", {}, `min ${num(stakes?.minBalanceSilver ?? 0n)} silver`),
        stakes?.rated ? h("span", {}, "rated") : null,
        h("span", {}, `${room.waitingPlayers} waiting`),
      ),
      h(
        "div",
        { class: "room-buttons" },
        h("button", { class: "primary", "data-action": "play", disabled: queued || tooPoor, onclick: () => void enqueue(room) }, tooPoor ? "Not enough silver" : "Play"),
        h("button", { "data-action": "friends", disabled: queued || tooPoor, onclick: () => void openFriends(room) }, "With friends 好友房"),
        h("a", { class: "button", "data-action": "tables", href: tablesRoute(room.roomId) }, "Watch"),
      ),
    );
  }

  function renderRooms() {
    const gomoku = rooms.filter((r) => r.gameType === GameType.GOMOKU);
    const ddz = rooms.filter((r) => r.gameType === GameType.DOUDIZHU);
    mount(roomsBox, h("h3", {}, "Gomoku 五子棋"), h("div", { class: "room-grid" }, ...gomoku.map(roomCard)), h("h3", {}, "Dou Dizhu 斗地主"), h("div", { class: "room-grid" }, ...ddz.map(roomCard)));
  }

  function renderBoard() {
    mount(
      boardBox,
      h("h3", {}, "Leaderboard 排行榜"),
      h(
        "div",
        { class: "board-tabs" },
        ...BOARDS.map((b) =>
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
        ? h("div", { class: "sub" }, "Nobody on this board yet.")
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
                h("td", { class: "sub" }, r.label),
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
    renderBoard();
  }

  function renderQueue() {
    if (!ticket) {
      mount(queueBox);
      return;
    }
    const t = ticket;
    const live = isLive(t);
    const waited = waitingSince ? Date.now() - waitingSince : 0;
    const text =
      t.state === TicketState.WAITING
        ? `Waiting for players in ${t.roomId}: position ${t.position} of ${t.waitingPlayers}${Number(t.estimatedWaitMs) > 0 ? ` · about ${clock(Number(t.estimatedWaitMs) - waited)} left` : ""} · waited ${clock(waited)}`
        : t.state === TicketState.MATCHING
          ? "A table is being opened…"
          : t.state === TicketState.SEATED
            ? "Seated! Opening the table…"
            : t.state === TicketState.REFUSED || t.state === TicketState.FAILED
              ? t.message || "No seat this time."
              : t.state === TicketState.EXPIRED
                ? "Nobody came in time. Try again."
                : "Cancelled.";
    mount(
      queueBox,
      h(
        "div",
        { class: `ticket ${live ? "live" : "ended"}`, id: "ticket", "data-state": TicketState[t.state] },
        live ? h("span", { class: "spinner" }) : null,
        h("span", { class: "text" }, text),
        live
          ? h("button", { id: "cancel", onclick: () => void cancel() }, t.cancelRequested ? "Cancelling…" : "Cancel")
          : h("button", { onclick: () => { ticket = undefined; renderQueue(); renderRooms(); } }, "OK"),
      ),
    );
  }

  function isLive(t: Ticket) {
    return t.state === TicketState.WAITING || t.state === TicketState.MATCHING;
  }

  function onTicket(t: Ticket | undefined) {
    if (!t) return;
    ticket = t;
    if (t.state === TicketState.SEATED && t.seat) {
      sessionStorage.removeItem(TICKET_KEY);
      ticketStream?.stop();
      toast(seatedWith(t.seat, api.player), "info");
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
          toast(explain(err));
        }
      },
    });
  }

  async function enqueue(room: Room) {
    try {
      sessionStorage.removeItem("gamehub.lastResult");
      const answer = await api.matchmaking.enqueue({ roomId: room.roomId, requestId: requestId() });
      const t = answer.ticket!;
      sessionStorage.setItem(TICKET_KEY, t.ticketId);
      onTicket(t);
      if (isLive(t)) watchTicket(t.ticketId);
    } catch (err) {
      toast(explain(err));
    }
  }

  async function openFriends(room: Room) {
    try {
      const answer = await api.matchmaking.openFriendsTable({ roomId: room.roomId, requestId: requestId() });
      const code = answer.table?.code;
      if (!code) return;
      rememberFriends(code);
      location.hash = friendsRoute(code);
    } catch (err) {
      toast(explainFriends(err));
    }
  }

  async function cancel() {
    if (!ticket) return;
    try {
      onTicket((await api.matchmaking.cancelTicket({ ticketId: ticket.ticketId })).ticket);
    } catch (err) {
      toast(explain(err));
    }
  }

  async function load() {
    try {
      const [roomList, accountAnswer] = await Promise.all([api.matchmaking.listRooms({}), api.ledger.getAccount({})]);
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
      toast(explain(err));
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
      clearInterval(timer);
      clearInterval(refresh);
      ticketStream?.stop();
    },
  };
}
