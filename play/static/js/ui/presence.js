// Who is there and how long the player to act has: each seat card's presence line ("here", "away since 14:05")
// and turn clock (red in its last minute), the clock choice of the new-game menu, and the banner a tab shows over
// its board once its seat was opened in another tab. Game-agnostic: it reads the room summary (docs/PLAY.md).

import { t } from "../i18n.js";
import { el } from "./hud.js";

/** The clocks a room may have, in seconds per turn ("none": no clock); the server refuses any other. */
export const CLOCKS = ["none", "60", "3600", "86400"];

/**
 * Return the menu's clock choice (a labelled select); `value()` gives what POST /api/rooms takes. A game may offer
 * fewer `choices` and another default (`fallback`): Frontera's rooms always have a clock (its rules page).
 */
export function clockSelect(saved, { choices = CLOCKS, fallback = "none" } = {}) {
  const select = el("select", { "data-testid": "menu-clock", "aria-label": t("clock.label") },
    ...choices.map((c) => el("option", { value: c, text: t(`clock.${c}`) })));
  select.value = choices.includes(saved) ? saved : fallback;
  const label = el("label", { class: "opt" }, el("span", { text: t("clock.label") }), select);
  return { select, label, value: () => (select.value === "none" ? "none" : Number(select.value)) };
}

function clockText(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (n) => String(n).padStart(2, "0");
  return h ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

/** Refresh every turn clock under `root` (elements with data-deadline): time left, red in the last minute. */
export function tickClocks(root) {
  for (const e of root.querySelectorAll("[data-deadline]")) {
    const left = Number(e.dataset.deadline) - Date.now() / 1000;
    e.textContent = t("clock.left", { time: clockText(left) });
    e.classList.toggle("urgent", left < 60);
  }
}

/** Return seat `p`'s presence line, plus its turn clock when it is to act (from the room summary `room`). */
export function seatStatus(room, p, turn) {
  const seat = room?.seats?.[p];
  if (!seat) return null;
  const since = seat.away_since ? new Date(seat.away_since * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) : null;
  const text = seat.presence === "left" ? t("seats.left")
    : seat.presence === "here" ? t("presence.here") : since ? t("presence.away_since", { since }) : t("presence.away");
  const line = el("span", { class: `presence ${seat.presence}`, "data-testid": `presence-${p}`, "data-presence": seat.presence,
    text });
  const clock = room.deadline && turn === p && !room.over
    ? el("span", { class: "turn-clock", "data-testid": `clock-${p}`, "data-deadline": String(room.deadline) })
    : null;
  const box = el("div", { class: "seat-status" }, line, clock);
  tickClocks(box);
  return box;
}

/** Show (once) the banner over the board of a tab whose seat was opened in another tab; disable its inputs. */
export function showReplaced(screenEl) {
  if (!screenEl || screenEl.querySelector("[data-testid=replaced-banner]")) return;
  screenEl.append(el("div", { class: "replaced-banner", role: "alert", "data-testid": "replaced-banner",
    text: t("conn.replaced") }));
  disableInputs(screenEl);
}

/** Disable a screen's game inputs (pass, end request, AI speed) once its tab no longer holds its seat. */
export function disableInputs(screenEl) {
  if (screenEl?.dataset.conn !== "replaced") return;
  for (const b of screenEl.querySelectorAll("[data-testid=pass], [data-testid=end-request], [data-testid=ai-speed]")) {
    b.disabled = true;
  }
}
