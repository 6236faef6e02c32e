// The room chat beside the move log, in the same column (docs/PLAY.md "Chat"): the room's lines, and for a seated
// player a text field (Enter or the send button) with a character counter near the bound. Game-agnostic: every
// game screen puts `panel.el` under its move log. Every text is written with textContent (el's `text`), never as
// HTML: a line holding "<script>" shows those characters.

import { t, errorText } from "../i18n.js";
import { el } from "./hud.js";

/** The longest line the server accepts, in characters once stripped (play/chat.py CHAT_LENGTH). */
export const CHAT_LENGTH = 300;
/** The counter appears once fewer than this many characters are left. */
const COUNTER_FROM = 50;

/** Return the characters of `text` the server counts: stripped, line breaks as spaces, code points. */
export function chatLength(text) {
  return [...text.replace(/\r\n|[\r\n\t]/g, " ").trim()].length;
}

function refusal(err) {
  const code = err?.code;
  if (code === "rate_limited") {
    const wait = Math.ceil(err.body?.allowed?.retry_after_s ?? 1);
    return t("chat.error.rate_limited", { seconds: wait });
  }
  if (code === "bad_message") return t("chat.error.bad", { max: CHAT_LENGTH });
  if (code === "connection_lost") return t("chat.error.lost");
  if (code === "spectator" || code === "replaced") return t("chat.error.watching");
  return errorText(err);
}

/** Return one chat line's list item (the chat's own list, or a game's column of events and chat). */
export function chatLine(line, swatch = () => null) {
  const at = new Date(line.at * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return el("li", { class: "chat-line", "data-testid": "chat-line", "data-version": String(line.version), title: at },
    swatch(line.seat),
    el("strong", { class: "chat-name", text: `${line.name}: ` }),
    el("span", { class: "chat-text", "data-testid": "chat-text", text: line.text }));
}

export class ChatPanel {
  /**
   * @param {object} conn the room connection (api.joinRoom): chat, say(text), onChat(fn), onStatus(fn)
   * @param {{canWrite: boolean, swatch?: (seat: number) => HTMLElement, onLines?: Function}} opts canWrite: a seated
   *   player (spectators read only); swatch: the game's mark of a seat's colour, shown before its name; onLines: the
   *   screen shows the lines itself, among the board's events (called on every new line), and the panel keeps the
   *   field and a screen reader's announcement of each new line
   */
  constructor(conn, { canWrite, swatch = () => null, onLines = null }) {
    this.conn = conn;
    this.swatch = swatch;
    this.onLines = onLines;
    this.linesEl = onLines
      ? el("p", { class: "visually-hidden", "data-testid": "chat-announce", "aria-live": "polite" })
      : el("ol", { class: "chat-lines", "data-testid": "chat-lines", "aria-live": "polite" });
    this.el = el("section", { class: `chat${onLines ? " chat-in-feed" : ""}`, "data-testid": "chat" },
      onLines ? null : el("h2", { "data-i18n": "chat.title", text: t("chat.title") }), this.linesEl);
    if (canWrite) this.el.append(this._form());
    else this.el.append(el("p", { class: "muted chat-readonly", "data-testid": "chat-readonly",
      "data-i18n": "chat.read_only", text: t("chat.read_only") }));
    conn.onChat(() => this.render());
    conn.onStatus?.((s) => s === "replaced" && this._readOnly());
    this.render();
  }

  _form() {
    this.input = el("input", { type: "text", class: "chat-input", "data-testid": "chat-input", autocomplete: "off",
      enterkeyhint: "send", "aria-label": t("chat.placeholder"), "data-i18n-aria": "chat.placeholder",
      placeholder: t("chat.placeholder"), "data-i18n-placeholder": "chat.placeholder",
      oninput: () => this._count() });
    this.counter = el("span", { class: "chat-counter", "data-testid": "chat-counter", "aria-live": "polite" });
    this.sendBtn = el("button", { type: "submit", "data-testid": "chat-send", "data-i18n": "chat.send", text: t("chat.send") });
    this.errorEl = el("p", { class: "chat-error", "data-testid": "chat-error", role: "alert", hidden: true });
    this.form = el("form", { class: "chat-form", onsubmit: (ev) => { ev.preventDefault(); this.send(); } },
      el("div", { class: "chat-row" }, this.input, this.sendBtn), this.counter, this.errorEl);
    this._count();
    return this.form;
  }

  /** Redraw the room's lines (the connection holds them), keeping the newest in view. */
  render() {
    const lines = this.conn.chat || [];
    if (this.onLines) {
      // announce only a line newer than the ones already there when the page opened (a reload says nothing)
      const last = lines[lines.length - 1];
      if (last && this.heard !== undefined && last.version > this.heard) this.linesEl.textContent = `${last.name}: ${last.text}`;
      this.heard = last ? last.version : 0;
      return void this.onLines(lines);
    }
    this.linesEl.replaceChildren(...lines.map((line) => chatLine(line, this.swatch)));
    this.linesEl.lastElementChild?.scrollIntoView?.({ block: "nearest" });
  }

  _count() {
    const left = CHAT_LENGTH - chatLength(this.input.value);
    this.counter.textContent = left < COUNTER_FROM ? t("chat.left", { left }) : "";
    this.counter.classList.toggle("over", left < 0);
    this.sendBtn.disabled = this.busy || left < 0 || left === CHAT_LENGTH;
  }

  /** Send the field's line; it leaves the field once the room has it, and stays there (with why) if refused. */
  async send() {
    if (!this.input || this.sendBtn.disabled) return;
    const text = this.input.value;
    this.busy = true;
    this._count();
    try {
      await this.conn.say(text);
      if (this.input.value === text) this.input.value = "";
      this.errorEl.hidden = true;
    } catch (err) {
      this.errorEl.textContent = refusal(err);
      this.errorEl.hidden = false;
    } finally {
      this.busy = false;
      if (this.input.isConnected && !this.input.disabled) this._count();
    }
  }

  /** Keep the lines but take the field away: this tab no longer holds its seat. */
  _readOnly() {
    if (!this.input) return;
    this.input.disabled = true;
    this.sendBtn.disabled = true;
  }
}
