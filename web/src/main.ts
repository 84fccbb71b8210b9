// gamehub's browser client: sign-in, then back to the player's table if it sits at one
// (LocatePlayer), then one page per route (the address's #fragment, so a reload comes
// back to the same table):
//
//   #/                     the lobby
//   #/gomoku/<table>       a Gomoku table the player sits at
//   #/doudizhu/<table>     a Dou Dizhu table the player sits at
//   #/watch/<game>/<table> any table, as a spectator
//   #/friends/<code>       a friends' table (好友房): its lobby, seats and ready marks
//   #/tables/<room>        a room's live tables, to pick one to watch
//
// A shared friends' table address (`?code=K7QX2M`) opens that table, after the sign-in
// if the page needs one.

import { connect, devSession, explain, findSession, forget, loadConfig, type Api, type SiteConfig } from "./api.js";
import { doudizhuTable } from "./doudizhu.js";
import { friendsTable } from "./friends.js";
import { gomokuTable } from "./gomoku.js";
import { lobby, rememberTicket } from "./lobby.js";
import { codeFromSearch, displayName } from "./names.js";
import { friendsRoute, rememberFriends, tableRoute } from "./routes.js";
import { tableList } from "./tables.js";
import { h, mount, num, toast } from "./ui.js";
import { GameType } from "./gen/gamehub/common/v1/common_pb.js";
import { FriendsTableState, TableStage } from "./gen/gamehub/matchmaking/v1/matchmaking_pb.js";

const page = document.getElementById("page")!;
const who = document.getElementById("who")!;
let current: { stop: () => void } | null = null;

/** The header's name and silver, read again on every page change and now and then. */
function refreshSilver(api: Api) {
  api.ledger
    .getAccount({})
    .then(({ account }) => {
      const silver = document.getElementById("header-silver");
      if (silver && account) silver.textContent = `${num(account.balanceSilver)} silver`;
      const name = document.getElementById("player");
      if (name && account) name.textContent = displayName(account.playerId, account);
    })
    .catch(() => undefined);
}

function route(api: Api) {
  refreshSilver(api);
  current?.stop();
  current = null;
  const [, first, second, third] = location.hash.split("/");
  window.scrollTo(0, 0);
  if (first === "gomoku" && second) current = gomokuTable(api, page, second, false);
  else if (first === "doudizhu" && second) current = doudizhuTable(api, page, second, false);
  else if (first === "watch" && second === "gomoku" && third) current = gomokuTable(api, page, third, true);
  else if (first === "watch" && second === "doudizhu" && third) current = doudizhuTable(api, page, third, true);
  else if (first === "friends" && second) current = friendsTable(api, page, second);
  else if (first === "tables" && second) current = tableList(api, page, second);
  else
    current = lobby(api, page, (account) => {
      const silver = document.getElementById("header-silver");
      if (silver) silver.textContent = `${num(account.balanceSilver)} silver`;
    });
}

/**
 * Back to where the player is (断线重连 after the app restarted or the page was opened on
 * another device): one LocatePlayer call on load. A seat at a table that goes on wins
 * over whatever the address says (a spectator's #/watch/ page stays as it is); then the
 * friends' table the player sits at, unless the page was opened by a shared code; a
 * live ticket is followed in the lobby. If the call fails the page carries on as it would.
 */
async function rejoin(api: Api, shared: boolean): Promise<void> {
  if (location.hash.startsWith("#/watch/")) return;
  try {
    const { seat, ticket, friendsTable: friends } = await api.matchmaking.locatePlayer({});
    if (friends && friends.state !== FriendsTableState.CLOSED) rememberFriends(friends.code);
    if (seat) {
      if (seat.friendsCode) rememberFriends(seat.friendsCode);
      const route = tableRoute(seat.gameType, seat.tableId);
      if (location.hash !== route) {
        history.replaceState(null, "", route);
        const game = seat.gameType === GameType.DOUDIZHU ? "Dou Dizhu" : "Gomoku";
        const stage = seat.stage === TableStage.BETWEEN_GAMES ? "between games" : "game in progress";
        const others = seat.players.flatMap((id, i) => (id === api.player ? [] : [displayName(id, seat.profiles[i])]));
        toast(`Back at your ${game} table (${seat.roomId}, ${stage})${others.length ? ` with ${others.join(" and ")}` : ""}.`, "info");
      }
    } else if (friends && friends.state !== FriendsTableState.CLOSED && !shared) {
      const route = friendsRoute(friends.code);
      if (location.hash !== route) {
        history.replaceState(null, "", route);
        toast(`Back at your friends' table ${friends.code}.`, "info");
      }
    } else if (ticket) {
      rememberTicket(ticket.ticketId);
    }
  } catch {
    // An older server without LocatePlayer, or a moment's outage: the page works as before.
  }
}

function signIn(config: SiteConfig): Promise<void> {
  return new Promise((resolve) => {
    if (!config.devTokens) {
      mount(
        page,
        h(
          "section",
          { class: "sign-in" },
          h("h2", {}, "Sign in"),
          h("p", {}, "This page needs a token from your game platform's login. Open it from the platform's site or app."),
        ),
      );
      return;
    }
    const name = h("input", { id: "player-name", placeholder: "your name", maxlength: 64, autocomplete: "nickname", required: true });
    const submit = async (player: string) => {
      try {
        await devSession(player);
        resolve();
      } catch (err) {
        toast(err instanceof Error ? err.message : explain(err));
      }
    };
    mount(
      page,
      h(
        "section",
        { class: "sign-in" },
        h("h2", {}, "Welcome to gamehub"),
        h("p", {}, "Gomoku 五子棋 and Dou Dizhu 斗地主, refereed by the server. Pick a player name (development sign-in: no password)."),
        h(
          "form",
          {
            onsubmit: (e: Event) => {
              e.preventDefault();
              void submit(name.value.trim());
            },
          },
          name,
          h("button", { class: "primary", type: "submit" }, "Play"),
        ),
        h("p", { class: "sub" }, "Each browser tab is its own player: open a second tab to play yourself, or run `gamehub bots`."),
      ),
    );
    const fromQuery = new URLSearchParams(location.search).get("player");
    if (fromQuery) void submit(fromQuery);
  });
}

async function main() {
  window.addEventListener("unhandledrejection", (e) => {
    e.preventDefault();
    toast(explain(e.reason));
  });
  let config: SiteConfig;
  try {
    config = await loadConfig();
  } catch {
    mount(page, h("section", { class: "sign-in" }, h("h2", {}, "The game server cannot be reached"), h("p", {}, "Reload the page in a moment.")));
    return;
  }
  let session = await findSession(config);
  if (!session) {
    await signIn(config);
    session = await findSession(config);
  }
  if (!session) return;
  const api = connect(config, session);
  // A shared address opens its friends' table; the code leaves the address, so a reload
  // stays wherever the player went since.
  const shared = codeFromSearch(location.search);
  if (shared) history.replaceState(null, "", `${location.pathname}${friendsRoute(shared)}`);
  mount(
    who,
    h("span", { class: "who-name", id: "player", title: session.player }, session.player),
    h("span", { class: "silver-chip", id: "header-silver" }),
    h(
      "button",
      {
        class: "link",
        onclick: () => {
          forget();
          location.hash = "#/";
          location.reload();
        },
      },
      "Sign out",
    ),
  );
  await rejoin(api, shared !== null);
  window.addEventListener("hashchange", () => route(api));
  setInterval(() => refreshSilver(api), 20000);
  window.addEventListener("gamehub:settled", () => refreshSilver(api));
  route(api);
}

void main();
