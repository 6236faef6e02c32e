// "Tus partidas" (docs/PLAY.md "Tus partidas", issue 44 item 5): the menu's list of the games this browser holds a
// seat in (my_seats.js), the tab title that counts the games waiting for your move, and, with permission, a
// browser notification when your turn comes. Game-agnostic: everything comes from POST /api/my-games.
//
// One poller serves the whole page: the list and the title watcher share its answers, a poll never starts while
// another is in flight, and it runs every POLL_MS (and when the tab becomes visible) only while someone listens.

import { t, errorText, seatName } from "../i18n.js";
import * as api from "../api.js";
import { forgetSeat, heldSeats } from "../my_seats.js";
import { el } from "./hud.js";
import { tickClocks } from "./presence.js";

/** How often the games are asked for while the menu or a game is open (ms). */
export const POLL_MS = 20000;
/** A poll asked for sooner than this after the last one is answered from it (tab switches come in bursts). */
const MIN_GAP_MS = 2000;
const NOTIFY_KEY = "dw.mine.notify";
const NOTIFIED_KEY = "dw.mine.notified";
/** Turns remembered as notified, so two tabs or a reload never announce one turn twice (oldest forgotten first). */
const NOTIFIED_MAX = 200;

const listeners = new Set();
let inflight = null;
let timer = null;
let last = null;
let lastAt = 0;

/** The remembered seats the server can be asked about (an entry with only a host token has no seat). */
function askable() {
  return heldSeats().filter((s) => typeof s.token === "string" && s.token && Number.isInteger(s.seat)).slice(-50);
}

/** Ask the server about every remembered seat now (unless a poll is in flight or was just answered). */
export function refresh(force = false) {
  if (inflight) return inflight;
  if (!force && last && Date.now() - lastAt < MIN_GAP_MS) return Promise.resolve(last);
  const seats = askable().map(({ room, seat, token }) => ({ room, seat, token }));
  clearTimeout(timer);
  inflight = (seats.length ? api.post("/api/my-games", { seats }) : Promise.resolve({ games: [] }))
    .then((answer) => {
      last = answer.games;
      lastAt = Date.now();
      for (const fn of [...listeners]) fn(last, null);
      return last;
    })
    .catch((err) => {
      for (const fn of [...listeners]) fn(null, err);
      return null;
    })
    .finally(() => {
      inflight = null;
      timer = listeners.size ? setTimeout(() => refresh(true), POLL_MS) : null;
    });
  return inflight;
}

function onVisibility() {
  if (document.visibilityState === "visible") refresh();
}

/** Call `fn(games, error)` after every poll (now, too) until the returned function is called. */
export function subscribe(fn) {
  listeners.add(fn);
  if (listeners.size === 1) document.addEventListener("visibilitychange", onVisibility);
  if (last) fn(last, null);
  refresh();
  return () => {
    listeners.delete(fn);
    if (listeners.size) return;
    clearTimeout(timer);
    timer = null;
    document.removeEventListener("visibilitychange", onVisibility);
  };
}

/** Return the link that opens a game's seat (a URL fragment: the token never reaches the server's logs). */
export function seatLink(game) {
  const held = heldSeats().find((s) => s.room === game.room && s.seat === game.seat);
  return `#room=${encodeURIComponent(game.room)}&seat=${game.seat}&token=${encodeURIComponent(held?.token || "")}`;
}

/** Return a game's key for "this turn was announced": the room, the seat and the ply. */
const turnKey = (g) => `${g.room}:${g.seat}:${g.ply}`;

// ---- the title and notifications -------------------------------------------------------------------------------

const watch = { room: null, baseTitle: null, stop: null, known: null, games: [] };

/** Whether the user asked to be told (the menu's toggle) and the browser allows it. */
export function notifying() {
  return readSetting(NOTIFY_KEY) === "1" && typeof Notification !== "undefined" && Notification.permission === "granted";
}

// storage may be disabled (private modes): then nothing is remembered, and nothing fails
function readSetting(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function writeSetting(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    /* not remembered */
  }
}

function notified() {
  try {
    const list = JSON.parse(readSetting(NOTIFIED_KEY) || "[]");
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

function markNotified(key) {
  writeSetting(NOTIFIED_KEY, JSON.stringify([...notified().filter((k) => k !== key), key].slice(-NOTIFIED_MAX)));
}

/** The games waiting for your move that you are not looking at: other games, and this one while the tab is hidden. */
function waiting(games) {
  return games.filter((g) => !g.error && g.your_turn && (g.room !== watch.room || document.visibilityState === "hidden"));
}

function showTitle() {
  const pending = waiting(watch.games);
  document.title = pending.length
    ? `(${pending.length}) ${t("mine.title_turn")} · ${pending[0].title}`
    : watch.baseTitle;
}

function announce(game) {
  const key = turnKey(game);
  if (!notifying() || notified().includes(key)) return;
  markNotified(key);
  const names = game.opponents.map((o) => seatName(o)).join(", ");
  try {
    const note = new Notification(t("mine.notify_title", { game: game.title }),
      { body: t("mine.notify_body", { names, game: game.title }), tag: key });
    note.onclick = () => {
      window.focus();
      location.hash = seatLink(game);
      note.close();
    };
  } catch {
    /* a browser that refuses to show it: the title still says it */
  }
}

function onGames(games) {
  if (!games) return;
  watch.games = games;
  // a turn is announced once, when it first appears, unless it was there when the page opened or is on screen
  if (watch.known !== null) for (const g of waiting(games)) if (!watch.known.has(turnKey(g))) announce(g);
  watch.known = new Set(games.filter((g) => !g.error && g.your_turn).map(turnKey));
  showTitle();
}

/** Watch for your turns while the menu (`room` null) or a game (`room`: the one on screen) is open. */
export function watchTurns(room, baseTitle) {
  watch.room = room;
  watch.baseTitle = baseTitle;
  if (!watch.stop) {
    watch.stop = subscribe(onGames);
    document.addEventListener("visibilitychange", showTitle);
  }
  showTitle();
}

/** Stop watching (the tutorial and the replays) and give the tab its own title back. */
export function stopWatching(baseTitle) {
  watch.stop?.();
  watch.stop = null;
  document.removeEventListener("visibilitychange", showTitle);
  watch.room = null;
  document.title = baseTitle;
}

// ---- the menu's list -------------------------------------------------------------------------------------------

/** The "tell me when it is my turn" switch (the menu's list and Frontera's forces panel); `testid` names its box. */
export function notifyToggle(testid = "mine-notify") {
  const box = el("input", { type: "checkbox", "data-testid": testid });
  box.checked = notifying();
  const note = el("span", { class: "muted", "data-testid": `${testid}-note` });
  box.addEventListener("change", async () => {
    note.textContent = "";
    if (!box.checked) {
      writeSetting(NOTIFY_KEY, "0");
      return;
    }
    // asked only here, on the user's click: never when a page loads
    const answer = typeof Notification === "undefined" ? "unsupported" : await Notification.requestPermission();
    writeSetting(NOTIFY_KEY, answer === "granted" ? "1" : "0");
    box.checked = answer === "granted";
    if (answer !== "granted") note.textContent = t(answer === "unsupported" ? "mine.notify_unsupported" : "mine.notify_denied");
  });
  return el("label", { class: "opt mine-notify" }, box, el("span", { "data-i18n": "mine.notify", text: t("mine.notify") }), note);
}

function whoseTurn(g) {
  if (g.over) {
    const winners = g.winner || [];
    if (winners.includes(g.seat)) return t("mine.you_won");
    const names = winners.map((w) => g.opponents.find((o) => o.seat === w)).filter(Boolean).map((o) => seatName(o));
    return names.length ? t("mine.won", { names: names.join(", ") }) : t("mine.over");  // a draw, or cut off
  }
  return g.your_turn ? t("mine.your_turn") : t("mine.turn_of", { name: turnName(g) });
}

/** A game's row: its link, opponents and whose turn it is, then `extra`; test ids start with `prefix`. */
function gameRow(g, prefix, ...extra) {
  return el("li", { class: `mine-game${g.your_turn ? " your-turn" : ""}${g.over ? " over" : ""}`,
    "data-testid": `${prefix}-game-${g.room}`, "data-your-turn": String(Boolean(g.your_turn)), "data-over": String(g.over) },
  el("a", { href: seatLink(g), class: "mine-open", "data-testid": `${prefix}-open-${g.room}` }, g.title),
  el("span", { class: "mine-vs", text: t("mine.against", { names: g.opponents.map((o) => seatName(o)).join(", ") }) }),
  el("span", { class: "mine-turn", "data-testid": `${prefix}-turn-${g.room}`, text: whoseTurn(g) }),
  ...extra);
}

/** The menu's row of a game: with its turn clock and a button to forget it. */
function menuRow(g, onForget) {
  const clock = !g.over && g.deadline ? el("span", { class: "turn-clock", "data-deadline": String(g.deadline) }) : null;
  return gameRow(g, "mine", clock, el("button", { type: "button", class: "mine-forget", "data-testid": `mine-forget-${g.room}`,
    onclick: () => onForget(g) }, t("mine.forget")));
}

/** The games of a poll's answer that this browser still holds a seat in. */
function stillHeld(games) {
  const held = heldSeats();
  return games.filter((g) => !g.error && held.some((s) => s.room === g.room && s.seat === g.seat));
}

function order(a, b) {
  const rank = (g) => (g.your_turn ? 0 : g.over ? 2 : 1);
  return rank(a) - rank(b) || (b.updated || 0) - (a.updated || 0);
}

/** The menu's "Tus partidas" section; `stop()` ends its polling and countdown when the menu goes away. */
export function myGamesSection() {
  const list = el("ul", { class: "mine-list", "data-testid": "my-games" });
  const status = el("p", { class: "muted", "data-testid": "mine-status", role: "status" });
  let games = [];
  const render = () => {
    list.replaceChildren(...games.slice().sort(order).map((g) => menuRow(g, forget)));
    section.hidden = !games.length && !status.textContent;  // a browser that holds no seat sees no empty section
    tickClocks(list);
  };
  const forget = (g) => {
    forgetSeat(g.room, g.seat);
    games = games.filter((x) => x !== g);
    render();
  };
  const section = el("section", { class: "panel mine", "data-testid": "mine-section", hidden: true },
    el("h2", { text: t("mine.title") }), notifyToggle(), status, list);
  const unsubscribe = subscribe((answer, error) => {
    if (error) {
      status.textContent = t("mine.error", { message: errorText(error) });
      return;
    }
    const gone = answer.filter((g) => g.error);
    for (const g of gone) forgetSeat(g.room, g.seat);  // gone, or the seat was handed to someone else
    status.textContent = gone.length ? t("mine.forgotten", { n: gone.length }) : "";
    games = stillHeld(answer);
    render();
  });
  const ticker = setInterval(() => tickClocks(list), 1000);
  return { section, stop: () => { unsubscribe(); clearInterval(ticker); } };
}

/** The name of the seat to move in a game of the list, in the page's language when the server gave it. */
function turnName(g) {
  const seat = (g.opponents || []).find((o) => o.seat === g.turn);
  return seat ? seatName(seat) : g.turn_name ?? "—";
}

// ---- a game screen's list of the player's other games ----------------------------------------------------------------

/**
 * The games other than `room` that this browser holds a seat in, the ones waiting for your move first and marked (the
 * rules page's "Otras partidas": a click jumps there). `onTurn()` is called when your turn comes in one of them
 * (a turn not there at the first answer, so opening the page rings nothing). Returns `{ section, stop }`.
 */
export function otherGames(room, onTurn) {
  const list = el("ul", { class: "mine-list mine-others", "data-testid": "other-games" });
  const section = el("section", { class: "mine-others-section", "data-testid": "other-games-section", hidden: true },
    el("h3", { "data-i18n": "mine.others_title", text: t("mine.others_title") }), list);
  let known = null;
  const stop = subscribe((answer) => {
    if (!answer) return;  // a failed poll keeps the last list; the next one tries again
    const games = stillHeld(answer).filter((g) => g.room !== room);
    const turns = games.filter((g) => g.your_turn && !g.over).map(turnKey);
    if (known !== null && turns.some((k) => !known.has(k))) onTurn?.();
    known = new Set(turns);
    list.replaceChildren(...games.sort(order).map((g) => gameRow(g, "other")));
    section.hidden = !games.length;
  });
  return { section, stop };
}
