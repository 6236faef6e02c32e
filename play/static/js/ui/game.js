// The game screen: board, HUD panels, buttons and keyboard (rules 11.1-11.10). It talks to a room through a
// connection object (main.js builds it over api.RoomSocket): conn.select(qr) -> Promise<{destinations}>,
// conn.act(message), conn.setSpeed(speed), conn.onView(fn), conn.onError(fn).

import { t, translate, onLangChange, langSwitch, errorText } from "../i18n.js";
import { DomainWheelView, cellIndex, normaliseLayout, normaliseState } from "../board/domain_wheel.js";
import {
  Announcer, el, logText, playerName, renderBanner, renderCards, renderLandDetails, renderLog, resultText,
} from "./hud.js";
import { helpPanel } from "./help.js";
import { showConnection } from "./connection.js";
import { disableInputs, seatStatus, tickClocks } from "./presence.js";
import { ChatPanel } from "./chat.js";
import { followSeats, leaveGame, rematchButton, seatMenu } from "./seat_menu.js";

export const SPEEDS = ["normal", "fast", "instant"];

/** A toolbar button; `key` adds its keyboard shortcut as a hint that only a page with a keyboard shows (css/base.css). */
function button(testid, i18n, onclick, { key, ...extra } = {}) {
  if (!key) return el("button", { type: "button", "data-testid": testid, "data-i18n": i18n, onclick, ...extra }, t(i18n));
  return el("button", { type: "button", "data-testid": testid, "aria-keyshortcuts": key, onclick, ...extra },
    el("span", { "data-i18n": i18n }, t(i18n)), el("kbd", { class: "key-hint", "aria-hidden": "true" }, key));
}

export class GameScreen {
  /**
   * @param {HTMLElement} root
   * @param {object} opts {layout (server JSON), players ([{name, ai, aiName}]), seat (int|null), conn, onExit, invites,
   *   speed}
   */
  constructor(root, opts) {
    this.root = root;
    this.opts = opts;
    this.seat = opts.seat ?? null;
    this.layout = normaliseLayout(opts.layout, opts.players);
    this.state = null;
    this.hoverLand = -1;
    this.follow = false;
    this.armedEnd = null;
    this._build();
    this.view = new DomainWheelView(this.boardEl, this.layout, {
      destinations: (cell) => this._destinations(cell),
      onMove: (src, dst) => this._move(src, dst),
      onHoverLand: (land) => {
        this.hoverLand = land;
        this._details();
      },
      interactive: this.seat !== null,
      onCursor: (cell, label) => {
        this.hoverLand = this.layout.cellLand[cell];
        this._details();
        this.announcer.say(label);
      },
    });
    this.view.seat = this.seat;
    this._keys = (ev) => this._key(ev);
    document.addEventListener("keydown", this._keys);
    this._unlang = onLangChange(() => this._relabel());
    opts.conn.onView((v) => this.update(v));
    opts.conn.onError((e) => this.toast(errorText(e)));
    opts.conn.onStatus?.((s, detail) => this._status(s, detail));
    opts.conn.onRoom?.(() => {
      // a seat may have changed hands (a player left, the host gave it away): its card names its new occupant
      this.layout.players.forEach((pl, p) => Object.assign(pl, opts.conn.players?.[p] || {}));
      if (this.state) this.update(this.state.raw);
    });
    this._ticker = setInterval(() => tickClocks(this.cardsEl), 1000);
    followSeats(this, opts.conn, this.root.querySelector(".game-screen"), opts.conn.room?.room);
  }

  /** Redraw the seat cards (the host's seat menu changed). */
  refreshSeats() {
    if (this.state) this.update(this.state.raw);
  }

  destroy() {
    document.removeEventListener("keydown", this._keys);
    clearInterval(this._ticker);
    this._unlang();
    this.opts.conn.close?.();
    this.root.replaceChildren();
  }

  _build() {
    const spectator = this.seat === null;
    this.boardEl = el("div", { class: "board-wrap" });
    this.cardsEl = el("div", { class: "cards panel", "data-testid": "player-cards" });
    // the banner and the log are redrawn whole on every view: the announcer alone speaks what changed
    this.bannerEl = el("div", { class: "banner", "data-testid": "turn-banner" });
    this.logEl = el("ol", { class: "log", "data-testid": "move-log" });
    this.announcer = new Announcer();
    this.detailsEl = el("aside", { class: "details panel", "data-testid": "land-details", hidden: true });
    this.passBtn = button("pass", "game.pass", () => this.pass(), { hidden: spectator, key: "P" });
    this.endBtn = button("end-request", "game.end_request", () => this.endRequest(), { hidden: spectator, class: "danger" });
    this.speedSel = el("select", { "data-testid": "ai-speed", "aria-label": t("game.ai_speed"),
      "data-i18n-aria": "game.ai_speed", onchange: () => this.opts.conn.setSpeed(this.speedSel.value) },
    ...SPEEDS.map((s) => el("option", { value: s, "data-i18n": `speed.${s}` }, t(`speed.${s}`))));
    this.speedSel.value = this.opts.speed || "normal";
    this.followBox = el("input", { type: "checkbox", "data-testid": "follow-turn",
      onchange: () => (this.follow = this.followBox.checked) });
    const zoomIn = button("zoom-in", "game.zoom_in_short", () => this.view.map.zoom(1.3), { "data-i18n-aria": "game.zoom_in",
      "aria-label": t("game.zoom_in") });
    const zoomOut = button("zoom-out", "game.zoom_out_short", () => this.view.map.zoom(1 / 1.3),
      { "data-i18n-aria": "game.zoom_out", "aria-label": t("game.zoom_out") });
    const overview = button("overview", "game.overview", () => this.view.map.overview(), { key: "R" });
    const king = button("to-king", "game.to_king", () => this.toKing(), { key: "F" });
    const help = button("help-button", "game.help_short", () => this.toggleHelp(), { "data-i18n-aria": "game.help",
      "aria-label": t("game.help"), title: "? / H" });
    const menu = button("menu-button", "game.menu", () => this.toggleMenu(), { key: "Esc" });
    // the move log and the chat share one column; on a narrow screen it opens over the board from this button
    this.chat = new ChatPanel(this.opts.conn, { canWrite: !spectator,
      swatch: (p) => el("span", { class: `swatch p${p}`, "aria-hidden": "true" }) });
    this.logPanel = el("div", { class: "log-panel panel", "data-testid": "log-panel" },
      el("h2", { "data-i18n": "game.log" }, t("game.log")), this.logEl, this.chat.el);
    const chatToggle = button("chat-toggle", "chat.title", () => this._toggleChat(), { class: "chat-toggle",
      "aria-expanded": "false" });
    this.opts.conn.onChat((line) => line && !this.logPanel.classList.contains("open") && chatToggle.classList.add("unread"));
    this.statusEl = el("span", { class: "conn", "data-testid": "conn-status" });
    const watching = spectator
      ? el("strong", { class: "watching", "data-testid": "spectating", "data-i18n": "game.spectating" }, t("game.spectating"))
      : null;
    const toolbar = el("div", { class: "toolbar panel", role: "toolbar", "aria-label": t("game.toolbar") },
      watching, this.passBtn, this.endBtn, leaveGame(this, this.opts.conn),
      // a spectator gets no player controls: the server refuses their speed changes, and they have no king
      spectator ? null : el("label", { class: "inline" }, el("span", { "data-i18n": "game.ai_speed" }, t("game.ai_speed")),
        this.speedSel),
      el("label", { class: "inline" }, this.followBox, el("span", { "data-i18n": "game.follow" }, t("game.follow"))),
      zoomOut, zoomIn, overview, spectator ? null : king, help, chatToggle, menu, langSwitch(), this.statusEl);
    this.helpEl = helpPanel(() => this.toggleHelp(false));
    this.helpEl.hidden = true;
    this.menuEl = this._pauseMenu();
    this.menuEl.hidden = true;
    this.overEl = el("div", { class: "overlay over-box", "data-testid": "game-over-panel", hidden: true });
    this.root.replaceChildren(el("div", { class: "game-screen", "data-testid": "game-screen" },
      this.boardEl,
      el("div", { class: "hud-top" }, this.cardsEl, this.bannerEl, this.logPanel),
      this.detailsEl, toolbar, this.helpEl, this.menuEl, this.overEl, this.announcer.el));
  }

  _pauseMenu() {
    const links = this.opts.invites ? this.opts.invites() : null;
    return el("div", { class: "overlay pause", "data-testid": "pause-menu", role: "dialog", "aria-modal": "true" },
      el("div", { class: "box" },
        el("h2", { "data-i18n": "game.menu" }, t("game.menu")),
        links,
        el("div", { class: "row" },
          button("resume", "game.resume", () => this.toggleMenu(false), { class: "primary" }),
          button("leave", "game.leave", () => this.opts.onExit?.()))));
  }

  /** Open or close the log-and-chat column over the board (narrow screens, where it is hidden by default). */
  _toggleChat(show = !this.logPanel.classList.contains("open")) {
    this.logPanel.classList.toggle("open", show);
    const toggle = this.root.querySelector("[data-testid=chat-toggle]");
    toggle.setAttribute("aria-expanded", String(show));
    toggle.classList.remove("unread");
    if (show) this.chat.input?.focus();
  }

  _status(s, detail) {
    showConnection(this.statusEl, this.root.querySelector(".game-screen"), s, detail);
  }

  _relabel() {
    this.view.relabel();
    if (this.state) this.update(this.state.raw);
  }

  toast(text) {
    const tst = el("div", { class: "toast", role: "alert", "data-testid": "toast", text });
    document.body.append(tst);
    setTimeout(() => tst.remove(), 3500);
  }

  /** Show a new state view from the server. */
  update(v) {
    const prevTurn = this.state?.turn;
    this.state = normaliseState(this.layout, v);
    this.root.querySelector(".game-screen").dataset.ply = String(this.state.ply);
    this.root.querySelector(".game-screen").dataset.turn = String(this.state.turn);
    this.root.querySelector(".game-screen").dataset.over = String(this.state.over);
    this.view.update(this.state);
    renderCards(this.cardsEl, this.layout, this.state, this.seat);
    for (const card of this.cardsEl.querySelectorAll("[data-player]")) {
      const p = Number(card.dataset.player);
      card.append(seatStatus(this.opts.conn.room, p, this.state.turn) || "", seatMenu(this, this.opts.conn, p) || "");
    }
    renderBanner(this.bannerEl, this.layout, this.state, this.seat);
    renderLog(this.logEl, this.layout, this.state.log);
    const st = this.state;
    const turnText = st.over ? resultText(this.layout, st)
      : st.turn === this.seat ? t("banner.your_turn") : t("banner.turn_of", { name: playerName(this.layout, st.turn) });
    this.announcer.update(st.ply, st.over ? "over" : st.turn,
      (n) => st.log.slice(-n).map((e) => logText(this.layout, e)), turnText);
    this._details();
    const mine = this.seat !== null && this.state.turn === this.seat && !this.state.over;
    this.passBtn.disabled = !mine;
    this.endBtn.disabled = !mine || !this.state.canRequestEnd;
    this.endBtn.title = t("game.end_hint", { E: this.layout.options.end_request_points });
    if (!mine) this._disarm();
    disableInputs(this.root.querySelector(".game-screen"));
    if (this.follow && prevTurn !== this.state.turn && !this.state.over) {
      const k = this.view.kingCell(this.state.turn);
      if (k >= 0) this.view.map.focusCell(k, 40);
    }
    if (this.state.over && !this._overShown) {
      this._overShown = true; // once: "look at the board" keeps it closed
      this._showOver();
    } else if (this.state.over && !this.overEl.hidden) this._showOver();
  }

  _details() {
    const viewer = this.seat ?? this.state?.turn ?? 0;
    renderLandDetails(this.detailsEl, this.layout, this.state, this.hoverLand, viewer);
  }

  _showOver() {
    this.overEl.hidden = false;
    this.overEl.replaceChildren(el("div", { class: "box" },
      el("h2", { text: t("end.title") }),
      el("p", { "data-testid": "game-over-reason", text: resultText(this.layout, this.state) }),
      el("ol", { class: "final-scores" }, ...[0, 1, 2]
        .sort((a, b) => this.state.scores[b] - this.state.scores[a])
        .map((p) => el("li", {}, el("span", { class: `swatch p${p}` }),
          `${playerName(this.view.layout, p)}: ${this.state.scores[p]}`,
          this.state.winners.includes(p) ? ` ★ ${t("end.winner")}` : ""))),
      el("div", { class: "row" },
        button("over-close", "end.look", () => (this.overEl.hidden = true)),
        rematchButton(this, this.opts.conn),
        button("over-menu", "game.leave", () => this.opts.onExit?.(), { class: "primary" }))));
  }

  async _destinations(cell) {
    const res = await this.opts.conn.select(this.layout.cells[cell]);
    return (res.destinations || []).map((d) => ({ ...d, to: cellIndex(this.layout, d.to) }));
  }

  _move(src, dst) {
    this.opts.conn.act({ action: "move", from: this.layout.cells[src], to: this.layout.cells[dst] });
  }

  pass() {
    if (this.seat === null || this.passBtn.disabled) return;
    this.view.select(-1);
    this.opts.conn.act({ action: "pass" });
  }

  /** End request: the first click arms the button, the second (within 5 s) confirms (rule 11.9). */
  endRequest() {
    if (this.endBtn.disabled) return;
    if (!this.armedEnd) {
      this.endBtn.classList.add("armed");
      this.endBtn.textContent = t("game.end_confirm");
      this.endBtn.dataset.armed = "true";
      this.armedEnd = setTimeout(() => this._disarm(), 5000);
      return;
    }
    this._disarm();
    this.opts.conn.act({ action: "end_request" });
  }

  _disarm() {
    if (this.armedEnd) clearTimeout(this.armedEnd);
    this.armedEnd = null;
    this.endBtn.classList.remove("armed");
    this.endBtn.textContent = t("game.end_request");
    delete this.endBtn.dataset.armed;
  }

  toKing() {
    const p = this.seat ?? this.state?.turn ?? 0;
    const k = this.view.kingCell(p);
    if (k >= 0) this.view.map.focusCell(k);
  }

  toggleHelp(show = this.helpEl.hidden) {
    this.helpEl.hidden = !show;
    if (show) this.helpEl.querySelector("button")?.focus();
  }

  toggleMenu(show = this.menuEl.hidden) {
    this.menuEl.hidden = !show;
    if (show) this.menuEl.querySelector("button.primary")?.focus();
  }

  _key(ev) {
    if (ev.target.closest?.("input, select, textarea")) return;
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const k = ev.key;
    if (k === "Escape") {
      if (!this.helpEl.hidden) this.toggleHelp(false);
      else if (this.view.selected >= 0) this.view.select(-1);
      else if (this.armedEnd) this._disarm();
      else this.toggleMenu();
      ev.preventDefault();
      return;
    }
    if (!this.menuEl.hidden) return;
    if (k === "?" || k === "h" || k === "H") {
      this.toggleHelp();
      ev.preventDefault();
      return;
    }
    if (k === "p" || k === "P") {
      this.pass();
      ev.preventDefault();
      return;
    }
    if (k === "f" || k === "F") {
      this.toKing();
      ev.preventDefault();
      return;
    }
    // Enter and Space on a focused control are that control's; on the page or the board they play at the cursor
    const onControl = (k === "Enter" || k === " ") && ev.target !== document.body && !ev.target.closest?.(".board-wrap");
    if (!onControl && this.seat !== null && this.view.cursorKey(ev)) {
      ev.preventDefault();
      return;
    }
    if (this.view.map.key(ev)) ev.preventDefault();
  }
}

export { translate };
