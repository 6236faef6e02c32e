// The page's router: the menu, a game (a room seat or a spectator), the tutorial or the replays, chosen by the URL
// fragment (docs/PLAY.md "Links"; the fragment never reaches the server, so seat tokens stay out of its logs):
//   #room=ID&seat=S&token=T   play seat S of a room (invite link; reconnecting resumes the seat)
//   #room=ID                  watch a room read-only (spectator link)
//   #tutorial / #tutorial=paso_05   #replays   #replay=SOURCE/PATH   anything else: the menu
//   #alveole                  Alveole's menu (a room of another game is shown by that game's screen)
//   #conquer                  Conquer's menu
//   #frontera                 Frontera's menu

import { initI18n, t, translate, errorText } from "./i18n.js";
import * as api from "./api.js";
import { hostToken, rememberHost, rememberSeat } from "./my_seats.js";
import { MenuScreen, invitePanel } from "./ui/menu.js";
import { GameScreen } from "./ui/game.js";
import { TutorialScreen } from "./ui/tutorial.js";
import { ReplayScreen } from "./ui/replay.js";
import { el } from "./ui/hud.js";
import { AlveoleMenuScreen, AlveoleScreen } from "./ui/alveole.js";
import { ConquerMenuScreen, ConquerScreen } from "./ui/conquer.js";
import { FronteraMenuScreen, FronteraScreen } from "./ui/frontera.js";
import { stopWatching, watchTurns } from "./ui/my_games.js";

const TITLE = "Domain Wheel";
const app = document.getElementById("app");
let screen = null;
let view = null;

// Each route draws into a container of its own. Screens load their data asynchronously, so a route that was
// left (the URL changed while it waited) may still finish; it then draws into its detached container, never
// over the route that replaced it.
function clear() {
  screen?.destroy?.();
  screen = null;
  view = el("div", { class: "view" });
  app.replaceChildren(view);
  return view;
}

function goHash(hash) {
  history.pushState(null, "", `${location.pathname}${location.search}${hash}`);
  route();
}

const goMenu = () => goHash("");

function hashParams() {
  const h = location.hash.replace(/^#/, "");
  const p = new URLSearchParams(h);
  if (h === "tutorial" || h === "replays" || h === "alveole" || h === "conquer" || h === "frontera") p.set(h, "");
  return p;
}

async function startRoom(choice) {
  const room = await api.createRoom(choice);
  const mine = room.invites[0];
  rememberHost(room.room, room.host_token);
  sessionStorage.setItem(`dw.room.${room.room}`, JSON.stringify({ invites: room.invites, spectator_url: room.spectator_url }));
  // this tab takes the first human seat; with no human seat it watches the AIs play
  history.pushState(null, "", mine ? mine.url : room.spectator_url);
  return route();
}

async function showGame(roomId, token, seat) {
  const root = clear();
  root.append(el("p", { class: "loading", text: t("menu.loading") }));
  let conn;
  try {
    conn = await api.joinRoom(roomId, token, seat, hostToken(roomId));
  } catch (err) {
    root.replaceChildren(el("div", { class: "menu-screen" },
      el("p", { class: "error-box", "data-testid": "join-error", text: `${t("game.join_error")}: ${errorText(err)}` }),
      el("button", { type: "button", onclick: goMenu }, t("game.leave"))));
    return;
  }
  if (root !== view) {  // the URL changed while joining: leave the seat to whoever comes back for it
    conn.close();
    return;
  }
  if (conn.role === "player" && token) rememberSeat({ room: roomId, seat: conn.seat, token, game: conn.room?.game });
  const saved = JSON.parse(sessionStorage.getItem(`dw.room.${roomId}`) || "null");
  const invites = saved ? () => invitePanel(saved) : null;
  // a fresh room with several human seats shows its invite links once, open (the board games' side column)
  const firstInvites = Boolean(saved && saved.invites.length > 1 && !sessionStorage.getItem(`dw.room.${roomId}.shown`));
  const boardInvites = saved && saved.invites.length > 1 ? { invites, invitesOpen: firstInvites } : {};
  if (firstInvites) sessionStorage.setItem(`dw.room.${roomId}.shown`, "1");
  root.replaceChildren();
  if (conn.room?.game === "conquer") {
    screen = new ConquerScreen(root, { layout: conn.layout, players: conn.players, seat: conn.seat, conn,
      speed: conn.speed, onExit: () => goHash("#conquer"), ...boardInvites });
    if (conn.view) screen.update(conn.view);
    return;
  }
  if (conn.room?.game === "frontera") {
    screen = new FronteraScreen(root, { layout: conn.layout, players: conn.players, seat: conn.seat, conn,
      speed: conn.speed, onExit: () => goHash("#frontera"), onMenu: goMenu, ...boardInvites });
    if (conn.view) screen.update(conn.view);
    return;
  }
  if (conn.room?.game === "alveole") {
    screen = new AlveoleScreen(root, { layout: conn.layout, players: conn.players, seat: conn.seat, conn,
      speed: conn.speed, onExit: () => goHash("#alveole"), ...boardInvites });
    if (conn.view) screen.update(conn.view);
    return;
  }
  screen = new GameScreen(root, {
    layout: conn.layout,
    players: conn.players,
    seat: conn.seat,
    conn,
    invites,
    speed: conn.speed,
    onExit: goMenu,
  });
  if (conn.view) screen.update(conn.view);
  // a fresh room with several human seats: show the invite links once
  if (firstInvites) screen.toggleMenu(true);
}

// A fragment link or Back fires popstate, then hashchange for the same address: route it once. A link to the
// address already shown fires popstate alone and shows it again (a fresh drawing, in the current language).
let popped = null;

function onPopState() {
  popped = location.href;
  route();
}

function onHashChange() {
  const seen = popped === location.href;
  popped = null;
  if (!seen) route();
}

async function route() {
  const q = hashParams();
  // your turns elsewhere are watched from the menus and the games, not the tutorial or the replays
  if (q.has("tutorial") || q.has("replays") || q.has("replay")) stopWatching(TITLE);
  else watchTurns(q.get("room"), TITLE);
  if (q.get("room")) return showGame(q.get("room"), q.get("token"), q.get("seat"));
  const root = clear();
  if (q.has("tutorial")) {
    screen = new TutorialScreen(root, { onExit: goMenu, start: q.get("tutorial") || null });
    return screen.show();
  }
  if (q.has("conquer")) {
    screen = new ConquerMenuScreen(root, { onPlay: startRoom, onExit: goMenu });
    return screen.show();
  }
  if (q.has("frontera")) {
    screen = new FronteraMenuScreen(root, { onPlay: startRoom, onExit: goMenu });
    return screen.show();
  }
  if (q.has("alveole")) {
    screen = new AlveoleMenuScreen(root, { onPlay: startRoom, onExit: goMenu });
    return screen.show();
  }
  if (q.has("replays") || q.has("replay")) {
    screen = new ReplayScreen(root, { onExit: goMenu, record: q.get("replay") || null });
    return screen.show();
  }
  screen = new MenuScreen(root, {
    onPlay: startRoom,
    onTutorial: () => goHash("#tutorial"),
    onReplays: () => goHash("#replays"),
    onAlveole: () => goHash("#alveole"),
    onConquer: () => goHash("#conquer"),
    onFrontera: () => goHash("#frontera"),
  });
  return screen.show();
}

await initI18n();
translate(document);
document.title = TITLE;
// routes wait for the texts: a link followed while they load is routed once, by the first route, in its language
window.addEventListener("popstate", onPopState);
window.addEventListener("hashchange", onHashChange);
route();
