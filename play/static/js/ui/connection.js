// The connection's truth on a game screen: connected, reconnecting (and when the next try is), the server restarted
// and the game was restored, or the room no longer exists (with a way back to the menu). While the line is not
// live the board takes no clicks, so a board never looks playable when it is not.

import { t } from "../i18n.js";
import { el } from "./hud.js";
import { showReplaced } from "./presence.js";

/** The states in which the board takes input; any other state greys it out and ignores clicks. */
const LIVE = new Set(["open", "restored"]);

/** Show connection state `s` (with `detail`, e.g. {seconds}) in `statusEl`; mark `screenEl` live or not. */
export function showConnection(statusEl, screenEl, s, detail = {}) {
  if (screenEl?.dataset.conn === "replaced" && s !== "gone") return; // only a reload takes the seat back
  statusEl.dataset.state = s;
  if (screenEl) screenEl.dataset.conn = LIVE.has(s) ? "live" : s;
  if (s === "replaced") showReplaced(screenEl);
  if (s === "open") {
    statusEl.replaceChildren();
    return;
  }
  const text = s === "reconnecting" && detail.seconds ? t("conn.reconnecting_in", detail) : t(`conn.${s}`);
  statusEl.replaceChildren(el("span", { text }));
  if (s === "gone" || s === "refused" || s === "bye_expired") {
    statusEl.append(" ", el("a", { href: "#", "data-testid": "back-to-menu", text: t("conn.back_to_menu") }));
  }
}
