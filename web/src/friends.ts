// A friends' table's lobby (好友房, docs/rules.md#friends-tables): the code big and a
// share link, the seats with names and ready marks, Ready / Not ready, the owner's
// controls (remove a player, add bots in free rooms, close) and Leave. The screen
// follows the table with WatchFriendsTable; when it is PLAYING a seated player goes to
// the game table, and the game screen comes back here when that table closes.

import { follow, type Api } from "./api.js";
import { explainFriends } from "./errors.js";
import { BOT_MARK, displayName, isBot, shareLink, standingLine } from "./names.js";
import { LOBBY_ROUTE, forgetFriends, isClosed, rememberFriends, tableRoute, watchRoute } from "./routes.js";
import { clock, h, mount, num } from "./ui.js";
import { GameType } from "./gen/gamehub/common/v1/common_pb.js";
import {
  FriendsCloseReason,
  FriendsTableState,
  type FriendsSeat,
  type FriendsTable,
} from "./gen/gamehub/matchmaking/v1/matchmaking_pb.js";

const CLOSE_REASONS: Record<FriendsCloseReason, string> = {
  [FriendsCloseReason.UNSPECIFIED]: "it closed",
  [FriendsCloseReason.OWNER]: "the owner closed it",
  [FriendsCloseReason.EMPTY]: "its last player left",
  [FriendsCloseReason.IDLE]: "no game was started for too long",
};

export interface FriendsView {
  stop: () => void;
}

export function friendsTable(api: Api, root: HTMLElement, code: string): FriendsView {
  let table: FriendsTable | undefined;
  /** The refusal or failure to show (once, on this screen); "" for none. */
  let notice = "";
  let busy = false;
  let connection: "live" | "reconnecting" | "stopped" = "live";
  let stream: { stop: () => void } | null = null;
  let stopped = false;
  let closesInEl: HTMLElement | null = null;

  const view = h("div", { class: "friends-table", "data-code": code }, h("p", { class: "loading" }, "Loading…"));
  mount(root, view);

  const mine = () => table?.seats.find((s) => s.playerId === api.player);
  const owner = () => table !== undefined && table.ownerId === api.player;
  const freeRoom = () => Number(table?.room?.stakes?.silverPerPoint ?? 0n) === 0;

  /** Shows a newer table; a seated player goes on to its game. */
  function show(t: FriendsTable | undefined) {
    if (!t || stopped) return;
    if (table && t.version < table.version) return;
    table = t;
    if (t.state === FriendsTableState.CLOSED) {
      forgetFriends(t.code);
      stream?.stop();
    } else if (mine()) {
      rememberFriends(t.code);
    }
    const game = t.game;
    if (t.state === FriendsTableState.PLAYING && game && mine() && !isClosed(game.tableId)) {
      location.hash = tableRoute(game.gameType, game.tableId);
      return;
    }
    render();
  }

  /** Runs a call on the table; its answer is shown at once, a refusal once, in words. */
  const act = async (what: () => Promise<{ table?: FriendsTable }>, after?: () => void) => {
    if (busy) return;
    busy = true;
    try {
      const answer = await what();
      notice = "";
      show(answer.table);
      after?.();
    } catch (err) {
      notice = explainFriends(err);
    } finally {
      busy = false;
      render();
    }
  };

  function seatRow(t: FriendsTable, s: FriendsSeat) {
    const taken = s.playerId !== "";
    const you = s.playerId === api.player;
    const bot = taken && isBot(s.playerId, s.profile);
    const removable = owner() && taken && !you && t.state === FriendsTableState.LOBBY;
    return h(
      "li",
      {
        class: `friends-seat${taken ? "" : " free"}${s.ready ? " ready" : ""}`,
        "data-seat": s.seat,
        "data-player": s.playerId,
        "data-ready": s.ready ? "true" : "false",
      },
      h("span", { class: "seat-number" }, `${s.seat + 1}`),
      h(
        "span",
        { class: "name", title: s.playerId },
        taken ? displayName(s.playerId, s.profile) : "free seat 空位",
        you ? h("span", { class: "badge" }, "you") : null,
        taken && s.playerId === t.ownerId ? h("span", { class: "badge owner" }, "owner 房主") : null,
        bot ? h("span", { class: "badge bot" }, BOT_MARK) : null,
      ),
      taken ? h("span", { class: "sub standing" }, standingLine(s.profile)) : null,
      taken ? h("span", { class: `ready-mark${s.ready ? " on" : ""}` }, s.ready ? "✓ ready 已准备" : "not ready") : null,
      removable
        ? h(
            "button",
            {
              class: "link remove",
              "data-remove": s.playerId,
              onclick: () => void act(() => api.matchmaking.removeFromFriendsTable({ code: t.code, playerId: s.playerId })),
            },
            "Remove",
          )
        : null,
    );
  }

  function status(t: FriendsTable): string {
    const seated = t.seats.filter((s) => s.playerId !== "");
    const ready = seated.filter((s) => s.ready);
    switch (t.state) {
      case FriendsTableState.LOBBY:
        if (seated.length < t.seats.length) {
          return `Waiting for friends: ${seated.length} of ${t.seats.length} seats taken. Share the code or the link.`;
        }
        return `Everyone is here: ${ready.length} of ${t.seats.length} ready. The game starts when all say ready (准备).`;
      case FriendsTableState.STARTING:
        return "Everyone is ready: the game table is opening…";
      case FriendsTableState.PLAYING:
        return mine() ? "The game table has closed; the table goes back to its lobby…" : "A game is being played at this table.";
      case FriendsTableState.CLOSED:
        return `This friends' table is closed: ${CLOSE_REASONS[t.closeReason]}.`;
      default:
        return "";
    }
  }

  function buttons(t: FriendsTable) {
    const me = mine();
    const lobby = t.state === FriendsTableState.LOBBY;
    const playing = t.state === FriendsTableState.PLAYING || t.state === FriendsTableState.STARTING;
    const freeSeat = t.seats.some((s) => s.playerId === "");
    const list: (HTMLElement | null)[] = [];
    if (me && lobby) {
      list.push(
        h(
          "button",
          {
            id: "ready",
            class: me.ready ? "toggled" : "primary",
            onclick: () => void act(() => api.matchmaking.setReady({ code: t.code, ready: !me.ready })),
          },
          me.ready ? "Not ready 取消准备" : "Ready 准备",
        ),
      );
    }
    if (!me && lobby && freeSeat) {
      list.push(h("button", { id: "join", class: "primary", onclick: () => void act(() => api.matchmaking.joinFriendsTable({ code: t.code })) }, "Sit down 入座"));
    }
    if (t.state === FriendsTableState.PLAYING && t.game && (!me || isClosed(t.game.tableId))) {
      const game = t.game;
      list.push(h("a", { class: "button", id: "watch-game", href: watchRoute(game.gameType, game.tableId) }, "Watch the game"));
    }
    if (owner() && lobby && freeSeat && freeRoom()) {
      list.push(h("button", { id: "add-bots", onclick: () => void act(() => api.matchmaking.addBots({ code: t.code })) }, "Fill with bots 加机器人"));
    }
    if (owner() && t.state !== FriendsTableState.CLOSED) {
      list.push(
        h(
          "button",
          {
            id: "close-table",
            class: "danger",
            onclick: () => {
              const question = playing
                ? "Close the table during a game? You leave the game: that is an escape (逃跑) and loses it."
                : "Close the table for everyone?";
              if (confirm(question)) void act(() => api.matchmaking.closeFriendsTable({ code: t.code }));
            },
          },
          "Close table",
        ),
      );
    }
    if (me && t.state !== FriendsTableState.CLOSED) {
      list.push(
        h(
          "button",
          {
            id: "leave-friends",
            onclick: () => {
              if (playing && !confirm("Leave during a game? That is an escape (逃跑) and loses it.")) return;
              void act(
                () => api.matchmaking.leaveFriendsTable({ code: t.code }),
                () => {
                  forgetFriends(t.code);
                  location.hash = LOBBY_ROUTE;
                },
              );
            },
          },
          "Leave 离开",
        ),
      );
    } else {
      list.push(h("a", { class: "button", href: LOBBY_ROUTE }, "Back to the lobby"));
    }
    return h("div", { class: "buttons" }, ...list);
  }

  function render() {
    if (stopped) return;
    closesInEl = null;
    const t = table;
    if (!t) {
      mount(
        view,
        h("header", { class: "table-head" }, h("h2", {}, "Friends' table 好友房"), h("div", { class: "sub" }, `code ${code}`)),
        notice ? h("div", { class: "notice", id: "notice", role: "alert" }, notice) : h("p", { class: "loading" }, "Loading…"),
        h("div", { class: "buttons" }, h("a", { class: "button", href: LOBBY_ROUTE }, "Back to the lobby")),
      );
      return;
    }
    const room = t.room;
    const stakes = room?.stakes;
    const link = shareLink(location.href, t.code);
    const copy = async () => {
      try {
        await navigator.clipboard.writeText(link);
        copied.textContent = "Copied";
      } catch {
        linkInput.select();
        copied.textContent = "Select and copy the link";
      }
    };
    const linkInput = h("input", { id: "share-link", readonly: true, value: link, "aria-label": "share link", onfocus: () => linkInput.select() });
    const copied = h("span", { class: "sub" });
    mount(
      view,
      h(
        "header",
        { class: "table-head" },
        h("h2", {}, "Friends' table 好友房", h("span", { class: "badge" }, room?.gameType === GameType.DOUDIZHU ? "Dou Dizhu 斗地主" : "Gomoku 五子棋")),
        h(
          "div",
          { class: "sub" },
          `${room?.displayName ?? ""} · ${room?.roomId ?? ""} · `,
          Number(stakes?.silverPerPoint ?? 0n) > 0 ? `base ${stakes?.pointsBase} · ${num(stakes?.silverPerPoint ?? 0n)} silver a point` : "free room: points only",
          " · never rated",
        ),
      ),
      h(
        "div",
        { class: "friends-share" },
        h("div", { class: "label" }, "Code 房间号"),
        h("div", { class: "friends-code", id: "friends-code" }, t.code),
        h("div", { class: "share" }, linkInput, h("button", { id: "copy-link", onclick: () => void copy() }, "Copy link"), copied),
        h("div", { class: "sub" }, "Friends open the link, or type the code in the lobby's “Join a friends' table” box."),
      ),
      h("ol", { class: "friends-seats", id: "friends-seats" }, ...t.seats.map((s) => seatRow(t, s))),
      h(
        "div",
        { class: "status", id: "friends-status", "data-state": FriendsTableState[t.state] },
        status(t),
        t.state === FriendsTableState.LOBBY && Number(t.closesAtUnixMs) > 0 ? (closesInEl = h("span", { class: "sub closes-in" })) : null,
      ),
      notice ? h("div", { class: "notice", id: "notice", role: "alert" }, notice) : null,
      buttons(t),
      connection === "reconnecting" ? h("div", { class: "notice" }, "Connection lost; reconnecting…") : null,
      connection === "stopped" && t.state !== FriendsTableState.CLOSED
        ? h("div", { class: "notice" }, "This table can no longer be followed; reload the page to try again.")
        : null,
    );
    tick();
  }

  function tick() {
    if (!table || !closesInEl) return;
    closesInEl.textContent = ` Closes in ${clock(Number(table.closesAtUnixMs) - Date.now())} unless a game starts.`;
  }

  async function start() {
    try {
      show((await api.matchmaking.getFriendsTable({ code })).table);
    } catch (err) {
      notice = explainFriends(err);
      forgetFriends(code);
      render();
      return;
    }
    if (stopped || table?.state === FriendsTableState.CLOSED) return;
    stream = follow({
      open: (_after, signal) => api.matchmaking.watchFriendsTable({ code }, { signal }),
      eventId: () => null,
      onItem: (item) => show(item.table),
      onState: (state, err) => {
        if (table?.state === FriendsTableState.CLOSED) return;
        connection = state;
        if (state === "stopped" && err) notice = explainFriends(err);
        render();
      },
    });
  }

  void start();
  const timer = setInterval(tick, 1000);
  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
      stream?.stop();
    },
  };
}
