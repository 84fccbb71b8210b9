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
//   #/tournaments          the tournaments (比赛): open and running first
//   #/tournament/<id>      a tournament: register, follow it, go to each round's table
//
// A shared friends' table address (`?code=K7QX2M`) opens that table, after the sign-in
// if the page needs one. The header holds the player's name, silver and a menu: the
// language (简体中文 / English), sound and motion, sign out; a change is remembered and
// redraws the page (the route runs again).

import { connect, devSession, explain, findSession, forget, loadConfig, type Api, type SiteConfig } from "./api.js";
import { doudizhuTable } from "./doudizhu.js";
import { friendsTable } from "./friends.js";
import { gomokuTable } from "./gomoku.js";
import { LANGS, S, applyLang, lang, setLang, type Lang } from "./i18n/index.js";
import { lobby, rememberTicket, roomName } from "./lobby.js";
import { codeFromSearch, devPlayerId, displayName, nameProblem, relabel, usableAsId } from "./names.js";
import { friendsRoute, rememberFriends, relabelRoutes, tableRoute } from "./routes.js";
import { applyPrefs, getPrefs, setPref, type Prefs } from "./settings.js";
import { tableList } from "./tables.js";
import { followRegistered } from "./tournament-link.js";
import { tournamentList, tournamentPage } from "./tournaments.js";
import { clearToasts, h, mount, num, toast } from "./ui.js";
import { GameType } from "./gen/gamehub/common/v1/common_pb.js";
import type { Account } from "./gen/gamehub/ledger/v1/ledger_pb.js";
import { FriendsTableState, TableStage } from "./gen/gamehub/matchmaking/v1/matchmaking_pb.js";

const page = document.getElementById("page")!;
const who = document.getElementById("who")!;
let current: { stop: () => void } | null = null;
/** The tournaments the player registered for, followed from every page. */
let registeredTournaments: { sync: () => void } | null = null;
let signedIn: { player: string } | null = null;
/** The header's last account, so a redraw (a language switch) keeps name and silver. */
let shown: { name: string; silver: bigint | null } = { name: "", silver: null };
/** Redraws the page on a language or settings change: the route, or the sign-in box. */
let redraw: () => void = () => undefined;

function showAccount(account: Account) {
  shown = { name: displayName(account.playerId, account), silver: account.balanceSilver };
  const silver = document.getElementById("header-silver");
  if (silver) {
    silver.dataset.silver = String(account.balanceSilver);
    mount(silver, h("span", { class: "coin", "aria-hidden": "true" }), h("span", { class: "amount" }, num(account.balanceSilver)));
    silver.title = S().common.silverAmount(num(account.balanceSilver));
  }
  const name = document.getElementById("player");
  if (name) name.textContent = shown.name;
}

/** The header's name and silver, read again on every page change and now and then. */
function refreshSilver(a: Api) {
  a.ledger
    .getAccount({})
    .then(({ account }) => account && showAccount(account))
    .catch(() => undefined);
}

/** The header: the player (once signed in) and the menu (language, sound, motion, sign out). */
function renderHeader() {
  const C = S().common;
  document.title = C.title;
  const prefs = getPrefs();
  const panel = h("div", { class: "menu-panel", id: "menu", hidden: true, role: "menu" });
  const button = h(
    "button",
    {
      class: "menu-button",
      id: "menu-button",
      "aria-label": C.menu,
      "aria-haspopup": "true",
      "aria-expanded": "false",
      onclick: (e: Event) => {
        e.stopPropagation();
        const open = panel.hidden;
        panel.hidden = !open;
        button.setAttribute("aria-expanded", String(open));
      },
    },
    h("span", { class: "bars", "aria-hidden": "true" }, h("span", {}), h("span", {}), h("span", {})),
  );
  const toggle = (key: keyof Prefs, label: string) =>
    h(
      "div",
      { class: "menu-row" },
      h("span", { class: "menu-label" }, label),
      h(
        "button",
        {
          class: `switch${prefs[key] ? " toggled" : ""}`,
          id: `pref-${key}`,
          "aria-pressed": String(prefs[key]),
          onclick: () => {
            setPref(key, !getPrefs()[key]);
            changed();
          },
        },
        prefs[key] ? C.on : C.off,
      ),
    );
  mount(
    panel,
    h(
      "div",
      { class: "menu-row" },
      h("span", { class: "menu-label" }, C.language),
      h(
        "span",
        { class: "langs" },
        ...LANGS.map((l) =>
          h(
            "button",
            {
              class: `lang${l.lang === lang() ? " toggled" : ""}`,
              "data-lang": l.lang,
              lang: l.lang,
              "aria-pressed": String(l.lang === lang()),
              onclick: () => switchLang(l.lang),
            },
            l.label,
          ),
        ),
      ),
    ),
    toggle("sound", C.sound),
    toggle("motion", C.motion),
    signedIn
      ? h(
          "button",
          {
            class: "link sign-out",
            id: "sign-out",
            onclick: () => {
              forget();
              location.hash = "#/";
              location.reload();
            },
          },
          C.signOut,
        )
      : null,
  );
  const silver = h("span", { class: "silver-chip", id: "header-silver" });
  mount(
    who,
    signedIn ? h("span", { class: "who-name", id: "player", title: signedIn.player }, shown.name || signedIn.player) : null,
    signedIn ? silver : null,
    h("div", { class: "menu" }, button, panel),
  );
  if (shown.silver !== null) {
    silver.dataset.silver = String(shown.silver);
    mount(silver, h("span", { class: "coin", "aria-hidden": "true" }), h("span", { class: "amount" }, num(shown.silver)));
    silver.title = C.silverAmount(num(shown.silver));
  }
}

/** After a language or settings change: the header and the page again, in the new words. */
function changed() {
  relabel();
  relabelRoutes();
  renderHeader();
  redraw();
}

function switchLang(l: Lang) {
  if (l === lang()) return;
  setLang(l);
  changed();
}

function route(a: Api) {
  refreshSilver(a);
  clearToasts();
  current?.stop();
  current = null;
  const [, first, second, third] = location.hash.split("/");
  window.scrollTo(0, 0);
  if (first === "gomoku" && second) current = gomokuTable(a, page, second, false);
  else if (first === "doudizhu" && second) current = doudizhuTable(a, page, second, false);
  else if (first === "watch" && second === "gomoku" && third) current = gomokuTable(a, page, third, true);
  else if (first === "watch" && second === "doudizhu" && third) current = doudizhuTable(a, page, third, true);
  else if (first === "friends" && second) current = friendsTable(a, page, second);
  else if (first === "tables" && second) current = tableList(a, page, second);
  else if (first === "tournaments") current = tournamentList(a, page);
  else if (first === "tournament" && second) current = tournamentPage(a, page, second);
  else current = lobby(a, page, showAccount);
  registeredTournaments?.sync();
}

/**
 * Back to where the player is (断线重连 after the app restarted or the page was opened on
 * another device): one LocatePlayer call on load. A seat at a table that goes on wins
 * over whatever the address says (a spectator's #/watch/ page stays as it is); then the
 * friends' table the player sits at, unless the page was opened by a shared code; a
 * live ticket is followed in the lobby. If the call fails the page carries on as it would.
 */
async function rejoin(a: Api, shared: boolean): Promise<void> {
  if (location.hash.startsWith("#/watch/")) return;
  const C = S().common;
  try {
    const { seat, ticket, friendsTable: friends } = await a.matchmaking.locatePlayer({});
    if (friends && friends.state !== FriendsTableState.CLOSED) rememberFriends(friends.code);
    if (seat) {
      if (seat.friendsCode) rememberFriends(seat.friendsCode);
      const target = tableRoute(seat.gameType, seat.tableId);
      if (location.hash !== target) {
        history.replaceState(null, "", target);
        const game = seat.gameType === GameType.DOUDIZHU ? C.doudizhu : C.gomoku;
        const stage = seat.stage === TableStage.BETWEEN_GAMES ? C.stageBetween : C.stageInProgress;
        const others = seat.players.flatMap((id, i) => (id === a.player ? [] : [displayName(id, seat.profiles[i])]));
        const room = roomName({ roomId: seat.roomId, displayName: seat.roomId });
        toast(C.backAtTable(game, room, stage, others.join(C.and)), "info", true);
      }
    } else if (friends && friends.state !== FriendsTableState.CLOSED && !shared) {
      const target = friendsRoute(friends.code);
      if (location.hash !== target) {
        history.replaceState(null, "", target);
        toast(C.backAtFriends(friends.code), "info", true);
      }
    } else if (ticket) {
      rememberTicket(ticket.ticketId);
    }
  } catch {
    // An older server without LocatePlayer, or a moment's outage: the page works as before.
  }
}

/**
 * Signs in; resolves with the display name to set when the typed name is not itself the
 * player id (a development sign-in of "张 三" is player `p-…` named 张 三).
 */
function signIn(config: SiteConfig): Promise<string | null> {
  return new Promise((resolve) => {
    let typed = "";
    let problemText = "";
    const draw = () => {
      const C = S().common;
      if (!config.devTokens) {
        mount(page, h("section", { class: "sign-in" }, h("h2", {}, C.signInTitle), h("p", {}, C.signInNeedsToken)));
        return;
      }
      const name = h("input", {
        id: "player-name",
        placeholder: C.namePlaceholder,
        "aria-label": C.nameLabel,
        maxlength: 64,
        autocomplete: "nickname",
        required: true,
        value: typed,
        oninput: () => (typed = name.value),
      });
      const problem = h("div", { class: "field-problem", id: "sign-in-problem", role: "alert" }, problemText);
      mount(
        page,
        h(
          "section",
          { class: "sign-in" },
          h("h2", {}, C.welcome),
          h("p", {}, C.welcomeText),
          h(
            "form",
            {
              onsubmit: (e: Event) => {
                e.preventDefault();
                void submit(name.value);
              },
            },
            name,
            h("button", { class: "primary", type: "submit", id: "sign-in" }, C.enter),
          ),
          problem,
          h("p", { class: "sub" }, C.tabHint),
        ),
      );
    };
    const submit = async (raw: string) => {
      const name = raw.trim();
      typed = raw;
      // An id-like name (ASCII, up to 64) is the player id itself; any other must be a
      // display name the ledger takes, and then names a derived id.
      problemText = usableAsId(name) ? "" : (nameProblem(name) ?? "");
      if (problemText) return draw();
      const player = devPlayerId(name, localStorage);
      try {
        await devSession(player);
        resolve(player === name ? null : name);
      } catch {
        problemText = S().common.signInFailed;
        draw();
      }
    };
    redraw = draw;
    draw();
    const fromQuery = new URLSearchParams(location.search).get("player");
    if (fromQuery && config.devTokens) void submit(fromQuery);
  });
}

async function main() {
  applyLang();
  applyPrefs();
  renderHeader();
  window.addEventListener("unhandledrejection", (e) => {
    e.preventDefault();
    toast(explain(e.reason));
  });
  document.addEventListener("click", (e) => {
    const panel = document.getElementById("menu");
    if (panel && !panel.hidden && !(e.target instanceof Node && panel.contains(e.target))) {
      panel.hidden = true;
      document.getElementById("menu-button")?.setAttribute("aria-expanded", "false");
    }
  });
  let config: SiteConfig;
  try {
    config = await loadConfig();
  } catch {
    redraw = () => mount(page, h("section", { class: "sign-in" }, h("h2", {}, S().common.serverUnreachable), h("p", {}, S().common.reloadSoon)));
    redraw();
    return;
  }
  let session = await findSession(config);
  let name: string | null = null;
  if (!session) {
    name = await signIn(config);
    session = await findSession(config);
  }
  if (!session) return;
  const a = connect(config, session);
  signedIn = { player: session.player };
  if (name !== null) {
    // The typed name, set once (the ledger's SetName): the header and the tables show it.
    try {
      const answer = await a.ledger.setName({ name });
      shown = { name: answer.name || session.player, silver: null };
    } catch {
      // the player can set it in the lobby's name field, which says why not
    }
  }
  // The sign-in's ?player= leaves the address (a reload keeps the session anyway).
  const params = new URLSearchParams(location.search);
  // A shared address opens its friends' table; the code leaves the address, so a reload
  // stays wherever the player went since.
  const shared = codeFromSearch(location.search);
  if (shared) history.replaceState(null, "", `${location.pathname}${friendsRoute(shared)}`);
  else if (params.has("player")) history.replaceState(null, "", `${location.pathname}${location.hash || "#/"}`);
  renderHeader();
  await rejoin(a, shared !== null);
  registeredTournaments = followRegistered(a);
  redraw = () => route(a);
  window.addEventListener("hashchange", () => route(a));
  setInterval(() => refreshSilver(a), 20000);
  window.addEventListener("gamehub:settled", () => refreshSilver(a));
  route(a);
}

void main();
