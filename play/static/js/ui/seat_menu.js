// Seats changing hands on a game screen (docs/PLAY.md "Seats change hands"), the same for every game: the player's
// "leave the game" (with a confirmation), the host's menu on each seat card (give it to an AI, or make a new link for a
// person), the game-over panel's "rematch" and the offer to go to the rematch once it exists.
// Seat cards are redrawn at every move, so what the host has opened (a seat's menu, a new link) lives in a state
// object kept per connection, and each redraw shows it again.

import { t, errorText, aiName } from "../i18n.js";
import * as api from "../api.js";
import { forgetSeat, hostToken, rememberHost } from "../my_seats.js";
import { el } from "./hud.js";

const menus = new WeakMap();

function menuState(conn) {
  if (!menus.has(conn)) menus.set(conn, { open: null, link: null, strategy: {} });
  return menus.get(conn);
}

function button(testid, key, onclick, extra = {}) {
  return el("button", { type: "button", "data-testid": testid, "data-i18n": key, onclick, ...extra }, t(key));
}

function report(screen, err) {
  screen.toast?.(errorText(err));
}

/** Return the host's menu for seat `p`'s card (null unless this tab is the host and the game goes on). */
export function seatMenu(screen, conn, p) {
  const room = conn.room;
  if (!conn.host || !room || room.over) return null;
  const state = menuState(conn);
  const details = el("details", { class: "seat-menu", "data-testid": `seat-menu-${p}` },
    el("summary", { "data-i18n": "seats.menu", text: t("seats.menu") }));
  details.open = state.open === p;
  details.addEventListener("toggle", () => {
    if (details.open) state.open = p;
    else if (state.open === p) state.open = null;
  });
  const pick = el("select", { "data-testid": `seat-strategy-${p}`, "aria-label": t("seats.strategy"),
    onchange: () => (state.strategy[p] = pick.value) });
  api.strategiesFor(room.game).then((list) => {
    pick.replaceChildren(...list.map((s) => el("option", { value: s.id, text: aiName(s.id, s.display_name) })));
    if (state.strategy[p]) pick.value = state.strategy[p];
  });
  const toAi = button(`seat-to-ai-${p}`, "seats.to_ai", () => {
    conn.replaceSeat(p, { by: "ai", strategy: pick.value }).catch((err) => report(screen, err));
  });
  const toPerson = button(`seat-new-link-${p}`, "seats.new_link", () => {
    conn.replaceSeat(p, { by: "person" }).then((answer) => {
      state.link = { seat: p, url: new URL(answer.link, location.href).href };
      screen.refreshSeats?.();
    }).catch((err) => report(screen, err));
  });
  details.append(el("div", { class: "row" }, pick, toAi), el("div", { class: "row" }, toPerson));
  if (state.link?.seat === p) details.append(linkBox(state.link.url, p));
  return details;
}

function linkBox(url, p) {
  const input = el("input", { type: "text", readonly: true, value: url, "data-testid": `seat-link-${p}`,
    "aria-label": t("seats.link") });
  const copy = button(`seat-link-copy-${p}`, "seats.copy", () => {
    input.select();
    navigator.clipboard?.writeText(url).catch(() => document.execCommand?.("copy"));
  });
  return el("div", { class: "row seat-link" }, input, copy);
}

/** Return the player's "leave the game" control (asks to confirm; null for spectators). */
export function leaveGame(screen, conn, words = { ask: "seats.leave", confirm: "seats.leave_confirm" }) {
  if (conn.seat === null || conn.seat === undefined) return null;
  const box = el("span", { class: "leave-game" });
  const ask = button("leave-game", words.ask, () => {
    box.replaceChildren(el("span", { text: t(words.confirm) }), " ",
      button("leave-confirm", "seats.leave_yes", () => {
        conn.leave().catch((err) => report(screen, err));
        box.replaceChildren();
      }, { class: "danger" }),
      button("leave-cancel", "seats.leave_no", () => box.replaceChildren(ask)));
  });
  box.append(ask);
  return box;
}

/** Return the game-over panel's "rematch" button for a player or the host (null for other spectators). */
export function rematchButton(screen, conn) {
  const seated = conn.seat !== null && conn.seat !== undefined;
  if (!seated && !conn.host) return null;
  return button("rematch", "seats.rematch", () => conn.rematch().catch((err) => report(screen, err)));
}

/** Return where this tab goes for the rematch room `newRoom`: its own seat's link, or the spectator link. */
export function rematchHash(conn, newRoom) {
  const seated = conn.seat !== null && conn.seat !== undefined && conn.token;
  const q = new URLSearchParams({ room: newRoom });
  if (seated) {
    q.set("seat", String(conn.seat));
    q.set("token", conn.token);
  }
  return `#${q.toString()}`;
}

/**
 * Follow a screen's seat changes: leaving forgets the seat in this browser and reopens the room as a spectator, a
 * seat handed over forgets it, and a rematch (now or already asked for) is offered on a banner in `screenEl`.
 */
export function followSeats(screen, conn, screenEl, roomId) {
  const mySeat = conn.seat;
  conn.onStatus?.((s) => {
    if (s !== "left" && s !== "bye_seat_handed_over") return;
    forgetSeat(roomId, mySeat);
    // said after the screen's own connection line (registered first), in this module's words
    screen.statusEl?.replaceChildren(el("span", { "data-testid": "seat-gone", text: t(`seats.status_${s}`) }));
    if (s === "left") location.hash = `#room=${encodeURIComponent(roomId)}`;
  });
  const offer = (newRoom) => {
    if (!newRoom || screenEl.querySelector("[data-testid=rematch-offer]")) return;
    const host = hostToken(roomId);
    if (host) rememberHost(newRoom, host); // the rematch keeps the host token
    screenEl.append(el("div", { class: "rematch-offer panel", role: "status", "data-testid": "rematch-offer" },
      el("span", { text: t("seats.rematch_ready") }), " ",
      el("a", { href: rematchHash(conn, newRoom), "data-testid": "rematch-go", text: t("seats.rematch_go") })));
  };
  conn.onRematch?.(offer);
  offer(conn.room?.rematch);
}
