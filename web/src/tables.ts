// A room's live tables (docs/rules.md#the-table-list), from the game service's
// ListTables: the players' names with titles and ranks, how far each game is and how
// many watch, page by page. A row opens the table in the spectator view.

import { explain, type Api } from "./api.js";
import { S } from "./i18n/index.js";
import { roomName } from "./lobby.js";
import { displayName, isBot, BOT_MARK, standingLine } from "./names.js";
import { LOBBY_ROUTE, watchRoute } from "./routes.js";
import { h, mount } from "./ui.js";
import { GameType, type TableSummary } from "./gen/gamehub/common/v1/common_pb.js";
import type { Room } from "./gen/gamehub/matchmaking/v1/matchmaking_pb.js";

const PAGE_SIZE = 20;

/** Where a listed table is: "game 2 · 17 stones · playing" / "第 2 局 · 17 手 · 对局中". */
export function stageLine(game: GameType, t: TableSummary): string {
  const F = S().friends;
  const ddz = game === GameType.DOUDIZHU;
  const number = ddz ? F.dealN(t.gameNumber) : F.gameN(t.gameNumber);
  if (!t.inProgress) return `${number} · ${F.betweenGames}`;
  const moves = ddz ? F.plays(t.moveNumber) : F.stones(t.moveNumber);
  return `${number} · ${moves} · ${F.phases[t.phase] ?? t.phase}`;
}

export interface TablesView {
  stop: () => void;
}

export function tableList(api: Api, root: HTMLElement, roomId: string): TablesView {
  const F = S().friends;
  const C = S().common;
  let room: Room | undefined;
  let tables: TableSummary[] = [];
  /** The page tokens of the pages before this one (the first page's is ""). */
  const previous: string[] = [];
  let pageToken = "";
  let nextPageToken = "";
  let loaded = false;
  let problem = "";

  const body = h("div", { class: "table-list-body" });
  mount(
    root,
    h(
      "section",
      { class: "table-list", "data-room": roomId },
      h("header", { class: "table-head" }, h("h2", { id: "tables-title" }, F.tablesIn(roomName({ roomId, displayName: roomId }))), h("div", { class: "sub" }, F.tablesHint)),
      body,
    ),
  );

  const game = () => room?.gameType ?? (roomId.startsWith("doudizhu") ? GameType.DOUDIZHU : GameType.GOMOKU);

  function row(t: TableSummary) {
    return h(
      "tr",
      { class: "table-row", "data-table": t.tableId, tabindex: 0, onclick: () => (location.hash = watchRoute(game(), t.tableId)) },
      h(
        "td",
        { class: "players" },
        ...t.players.map((p) =>
          h(
            "div",
            { class: "listed-player", "data-player": p.playerId },
            h("span", { class: "name", title: p.playerId }, displayName(p.playerId, p.profile)),
            isBot(p.playerId, p.profile) ? h("span", { class: "badge bot" }, BOT_MARK) : null,
            h("span", { class: "sub" }, ` ${standingLine(p.profile)}`),
          ),
        ),
      ),
      h("td", { class: "stage" }, stageLine(game(), t)),
      h("td", { class: "spectators" }, `${t.spectators}`),
      h("td", {}, h("a", { class: "button", href: watchRoute(game(), t.tableId) }, F.watch)),
    );
  }

  function render() {
    mount(
      body,
      problem ? h("div", { class: "notice", role: "alert" }, problem) : null,
      !loaded
        ? h("p", { class: "loading" }, C.loading)
        : problem
          ? null
          : tables.length === 0
          ? h("p", { class: "sub", id: "no-tables" }, previous.length ? F.noMoreTables : F.noTables)
          : h(
              "table",
              { class: "scores tables", id: "tables" },
              h("tr", {}, h("th", {}, F.colPlayers), h("th", {}, F.colStage), h("th", {}, F.colWatching), h("th", {}, "")),
              ...tables.map(row),
            ),
      h(
        "div",
        { class: "buttons" },
        previous.length ? h("button", { id: "first-page", onclick: () => void page("", true) }, F.firstPage) : null,
        previous.length ? h("button", { id: "previous-page", onclick: () => void page(previous.at(-1) ?? "", "back") }, F.previousPage) : null,
        nextPageToken ? h("button", { id: "next-page", onclick: () => void page(nextPageToken, "forward") }, F.nextPage) : null,
        h("button", { id: "refresh-tables", onclick: () => void page(pageToken, false) }, F.refresh),
        h("a", { class: "button", id: "back-to-lobby", href: LOBBY_ROUTE }, C.backToLobby),
      ),
    );
  }

  /** Loads the page at `token`; `move` says how it relates to the page shown. */
  async function page(token: string, move: "forward" | "back" | boolean) {
    try {
      const request = { roomId, pageSize: PAGE_SIZE, pageToken: token };
      const answer = game() === GameType.DOUDIZHU ? await api.doudizhu.listTables(request) : await api.gomoku.listTables(request);
      if (move === "forward") previous.push(pageToken);
      else if (move === "back") previous.pop();
      else if (move === true) previous.length = 0;
      pageToken = token;
      tables = answer.tables;
      nextPageToken = answer.nextPageToken;
      problem = "";
    } catch (err) {
      problem = explain(err);
    }
    loaded = true;
    render();
  }

  async function load() {
    try {
      room = (await api.matchmaking.listRooms({})).rooms.find((r) => r.roomId === roomId);
      const title = document.getElementById("tables-title");
      if (room && title) title.textContent = F.tablesIn(roomName(room));
    } catch {
      // the room's name is a nicety: the list names the room by its id then
    }
    await page("", true);
  }

  render();
  void load();
  const refresh = setInterval(() => void page(pageToken, false), 10000);
  return { stop: () => clearInterval(refresh) };
}
