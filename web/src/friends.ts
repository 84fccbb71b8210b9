// A friends' table's lobby (好友房, docs/rules.md#friends-tables): the code big and a
// share link, the seats with names and ready marks, Ready / Not ready, the owner's
// controls (remove a player, add bots in free rooms, close) and Leave. The screen
// follows the table with WatchFriendsTable; when it is PLAYING a seated player goes to
// the game table, and the game screen comes back here when that table closes.

import { follow, type Api } from "./api.js";
import { explainFriends } from "./errors.js";
import { S } from "./i18n/index.js";
import { roomName } from "./lobby.js";
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

function closeReason(reason: FriendsCloseReason): string {
  const F = S().friends;
  switch (reason) {
    case FriendsCloseReason.OWNER:
      return F.closedOwner;
    case FriendsCloseReason.EMPTY:
      return F.closedEmpty;
    case FriendsCloseReason.IDLE:
      return F.closedIdle;
    default:
      return F.closedUnspecified;
  }
}

export interface FriendsView {
  stop: () => void;
}

export function friendsTable(api: Api, root: HTMLElement, code: string): FriendsView {
  const F = S().friends;
  const C = S().common;
  let table: FriendsTable | undefined;
  /** The refusal or failure to show (once, on this screen); "" for none. */
  let notice = "";
  let busy = false;
  let connection: "live" | "reconnecting" | "stopped" = "live";
  let stream: { stop: () => void } | null = null;
  let stopped = false;
  let closesInEl: HTMLElement | null = null;

  const view = h("div", { class: "friends-table", "data-code": code }, h("p", { class: "loading" }, C.loading));
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
        taken ? displayName(s.playerId, s.profile) : F.freeSeat,
        you ? h("span", { class: "badge" }, C.you) : null,
        taken && s.playerId === t.ownerId ? h("span", { class: "badge owner" }, F.owner) : null,
        bot ? h("span", { class: "badge bot" }, BOT_MARK) : null,
      ),
      taken ? h("span", { class: "sub standing" }, standingLine(s.profile)) : null,
      taken ? h("span", { class: `ready-mark${s.ready ? " on" : ""}` }, s.ready ? F.ready : F.notReadyMark) : null,
      removable
        ? h(
            "button",
            {
              class: "link remove",
              "data-remove": s.playerId,
              onclick: () => void act(() => api.matchmaking.removeFromFriendsTable({ code: t.code, playerId: s.playerId })),
            },
            F.remove,
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
          return F.waitingFriends(seated.length, t.seats.length);
        }
        return F.everyoneHere(ready.length, t.seats.length);
      case FriendsTableState.STARTING:
        return F.starting;
      case FriendsTableState.PLAYING:
        return mine() ? F.backToLobbySoon : F.beingPlayed;
      case FriendsTableState.CLOSED:
        return F.closed(closeReason(t.closeReason));
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
          me.ready ? F.notReadyButton : F.readyButton,
        ),
      );
    }
    if (!me && lobby && freeSeat) {
      list.push(h("button", { id: "join", class: "primary", onclick: () => void act(() => api.matchmaking.joinFriendsTable({ code: t.code })) }, F.sitDown));
    }
    if (t.state === FriendsTableState.PLAYING && t.game && (!me || isClosed(t.game.tableId))) {
      const game = t.game;
      list.push(h("a", { class: "button", id: "watch-game", href: watchRoute(game.gameType, game.tableId) }, F.watchGame));
    }
    if (owner() && lobby && freeSeat && freeRoom()) {
      list.push(h("button", { id: "add-bots", onclick: () => void act(() => api.matchmaking.addBots({ code: t.code })) }, F.addBots));
    }
    if (owner() && t.state !== FriendsTableState.CLOSED) {
      list.push(
        h(
          "button",
          {
            id: "close-table",
            class: "danger",
            onclick: () => {
              const question = playing ? F.closeDuringGame : F.closeQuestion;
              if (confirm(question)) void act(() => api.matchmaking.closeFriendsTable({ code: t.code }));
            },
          },
          F.closeTable,
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
              if (playing && !confirm(F.leaveDuringGame)) return;
              void act(
                () => api.matchmaking.leaveFriendsTable({ code: t.code }),
                () => {
                  forgetFriends(t.code);
                  location.hash = LOBBY_ROUTE;
                },
              );
            },
          },
          F.leave,
        ),
      );
    } else {
      list.push(h("a", { class: "button", id: "back-to-lobby", href: LOBBY_ROUTE }, C.backToLobby));
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
        h("header", { class: "table-head" }, h("h2", {}, F.title), h("div", { class: "sub" }, F.codeLine(code))),
        notice ? h("div", { class: "notice", id: "notice", role: "alert" }, notice) : h("p", { class: "loading" }, C.loading),
        h("div", { class: "buttons" }, h("a", { class: "button", id: "back-to-lobby", href: LOBBY_ROUTE }, C.backToLobby)),
      );
      return;
    }
    const room = t.room;
    const stakes = room?.stakes;
    const link = shareLink(location.href, t.code);
    const copy = async () => {
      try {
        await navigator.clipboard.writeText(link);
        copied.textContent = F.copied;
      } catch {
        linkInput.select();
        copied.textContent = F.selectAndCopy;
      }
    };
    const linkInput = h("input", { id: "share-link", readonly: true, value: link, "aria-label": F.shareLabel, onfocus: () => linkInput.select() });
    const copied = h("span", { class: "sub" });
    mount(
      view,
      h(
        "header",
        { class: "table-head" },
        h("h2", {}, F.title, h("span", { class: "badge" }, room?.gameType === GameType.DOUDIZHU ? C.doudizhu : C.gomoku)),
        h(
          "div",
          { class: "sub" },
          `${room ? roomName(room) : ""} · `,
          Number(stakes?.silverPerPoint ?? 0n) > 0 ? F.paidLine(String(stakes?.pointsBase ?? 1), num(stakes?.silverPerPoint ?? 0n)) : F.freeLine,
          ` · ${F.neverRated}`,
        ),
      ),
      h(
        "div",
        { class: "friends-share" },
        h("div", { class: "label" }, F.codeLabel),
        h("div", { class: "friends-code", id: "friends-code" }, t.code),
        h("div", { class: "share" }, linkInput, h("button", { id: "copy-link", onclick: () => void copy() }, F.copyLink), copied),
        h("div", { class: "sub" }, F.shareHint),
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
      connection === "reconnecting" ? h("div", { class: "notice" }, F.reconnecting) : null,
      connection === "stopped" && t.state !== FriendsTableState.CLOSED
        ? h("div", { class: "notice" }, F.cannotFollow)
        : null,
    );
    tick();
  }

  function tick() {
    if (!table || !closesInEl) return;
    closesInEl.textContent = F.closesIn(clock(Number(table.closesAtUnixMs) - Date.now()));
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
