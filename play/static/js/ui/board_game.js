// What the screens of every two-player board game share (Alveole, Conquer): the menu (seat rows with names and the
// server's seats, the game's options, the AI speed, remembered choices, the rules), the game screen over a room
// connection (board, seat cards, turn banner, move log, the end panel) and the replay viewer. A game subclasses the
// three classes, giving each its spec as `static spec = {game, title, seats, stone}`, and supplies only its own: the board, the options, the
// card's numbers, the log text and the result.
//
// i18n keys, CSS classes and test ids follow the game's id: `${game}.seat.NAME`, `${game}.ai.ID`, `${game}.tagline`,
// `${game}-screen`, `${game}-side`, `${game}-menu`, `${game}-seat-kind-P`, ...

import { t, has, aiName, langSwitch, onLangChange, errorText, seatName } from "../i18n.js";
import * as api from "../api.js";
import { Announcer, el } from "./hud.js";
import { showConnection } from "./connection.js";
import { clockSelect, disableInputs, seatStatus, tickClocks } from "./presence.js";
import { ChatPanel } from "./chat.js";
import { followSeats, leaveGame, rematchButton, seatMenu } from "./seat_menu.js";
import { advancedCard, advancedToggle, isAdvanced, levelCard, strategyOptions } from "./levels.js";
import { bigButton, menuPage, RecordViews, replayControls, replayKey, speedSelect } from "./screen_parts.js";

/** Load a game's stylesheet (css/GAME.css) once: the page's index.html lists Domain Wheel's only. */
export function ensureStyles(game) {
  if (document.querySelector(`link[data-${game}-css]`)) return;
  document.head.append(el("link", { rel: "stylesheet", href: new URL(`../../css/${game}.css`, import.meta.url).href,
    [`data-${game}-css`]: "" }));
}

const seatLabel = (spec, p) => t(`${spec.game}.seat.${spec.seats[p]}`);
/** A labelled option input of a menu. */
export const optionLabel = (label, input) => el("label", { class: "opt" }, el("span", { text: label }), input);

/** The button that shows the whole board upright again (a finger's zooming tap, a pinch or a twist undone; key R). */
function overviewButton(screen) {
  // a hex board's map view turns and zooms; Frontera's board is its own map
  const overview = () => (screen.board?.map ?? screen.board)?.overview?.();
  return el("button", { type: "button", "data-testid": "board-overview", onclick: overview },
    el("span", { "data-i18n": "board.overview" }, t("board.overview")), el("kbd", { class: "key-hint", "aria-hidden": "true" }, "R"));
}

/** A board game's menu: who sits where, the game's options and the AI speed; Play creates a room. */
export class BoardMenuScreen {
  /** @param {{onPlay: Function, onExit: Function}} hooks */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.spec = this.constructor.spec;
    this.storage = `dw.menu.${this.spec.game}`;
  }

  /** Return the game's option inputs: {fields: labelled inputs, options(): for the room, remembered(): to store}. */
  optionFields(_game, _saved) {
    return { fields: [], options: () => ({}), remembered: () => ({}) };
  }

  /** The keys of the rules paragraphs (`${game}.rules.KEY`). */
  rules() {
    return [];
  }

  _remembered() {
    try {
      return JSON.parse(localStorage.getItem(this.storage) || "null") || {};
    } catch {
      return {};
    }
  }

  async show() {
    const { game: id, title, seats: seatNames, stone } = this.spec;
    ensureStyles(id);
    this.root.replaceChildren(el("p", { class: "loading", text: t("menu.loading") }));
    let game;
    let strategies;
    try {
      game = await api.gameMenu(id);
      strategies = await api.strategiesFor(id);
    } catch (err) {
      this.root.replaceChildren(el("p", { class: "error-box", text: `${t("menu.error")}: ${errorText(err)}` }));
      return;
    }
    if (!game || game.id !== id) {
      this.root.replaceChildren(el("p", { class: "error-box", text: t(`${id}.not_hosted`) }));
      return;
    }
    // the seats this server offers for the game: its levels, its own AIs, then (on request) the advanced list
    const label = (s) => t(`${id}.ai.${s.id}`);
    const defaultAI = [...strategies].reverse().find((s) => s.kind === "scripted")?.id;
    const saved = this._remembered();
    let showAdvanced = Boolean(saved.advanced);
    const seats = seatNames.map((_, p) => {
      const seat = seatLabel(this.spec, p);
      const nameIn = el("input", { type: "text", maxlength: 24, "data-testid": `${id}-seat-name-${p}`,
        "aria-label": t("menu.name_of", { seat }), value: saved.names?.[p] || seat });
      const want = saved.kinds?.[p] ?? (p === 0 ? "human" : defaultAI || "human");
      showAdvanced ||= isAdvanced(game, want);
      const kindSel = el("select", { "data-testid": `${id}-seat-kind-${p}`, "aria-label": t("menu.kind_of", { seat }) },
        ...strategyOptions(game, strategies, label, showAdvanced));
      kindSel.value = [...kindSel.options].some((o) => o.value === want) ? want : "human";
      const card = el("div", { class: "strategy-card", "data-testid": `${id}-seat-card-${p}` });
      const scripted = (v) => (has(`ladder.ai.${id}.${v}`) ? [t(`ladder.ai.${id}.${v}`)] : []); // its one-line description
      const showCard = () => card.replaceChildren(...(levelCard(game, kindSel.value) || advancedCard(game, kindSel.value)
        || scripted(kindSel.value)).map((x) => el("div", { text: x })));
      kindSel.addEventListener("change", showCard);
      showCard();
      return { nameIn, kindSel, showCard, row: el("div", { class: "seat-row" },
        el("span", { class: `${stone} p${p}`, "aria-hidden": "true" }), el("strong", { text: seat }), nameIn, kindSel, card) };
    });
    const advanced = advancedToggle(showAdvanced, (on) => {
      showAdvanced = on;
      for (const { kindSel, showCard } of seats) {
        const was = kindSel.value;
        kindSel.replaceChildren(...strategyOptions(game, strategies, label, on));
        kindSel.value = [...kindSel.options].some((o) => o.value === was) ? was : "human";
        showCard();
      }
    }, `${id}-show-advanced`);
    const options = this.optionFields(game, saved);
    const speedSel = speedSelect({ "data-testid": "menu-ai-speed" }, saved.speed);
    const clock = clockSelect(saved.clock, this.spec.clocks);
    const errorEl = el("p", { class: "error-box", hidden: true, "data-testid": "menu-error", role: "alert" });
    const start = async () => {
      errorEl.hidden = true;
      const players = seats.map(({ nameIn, kindSel }, p) => ({
        name: nameIn.value.trim() || seatLabel(this.spec, p),
        strategy: kindSel.value === "human" ? null : kindSel.value,
      }));
      try {
        localStorage.setItem(this.storage, JSON.stringify({ names: players.map((x) => x.name),
          kinds: seats.map((s) => s.kindSel.value), ...options.remembered(), speed: speedSel.value,
          clock: clock.select.value, advanced: showAdvanced }));
      } catch {
        /* not remembered */
      }
      try {
        await this.hooks.onPlay({ game: id, options: options.options(), players, ai_speed: speedSel.value,
          clock: clock.value() });
      } catch (err) {
        errorEl.hidden = false;
        errorEl.textContent = errorText(err);
      }
    };
    this.root.replaceChildren(menuPage(`${id}-menu`, title, t(`${id}.tagline`),
      [bigButton("play", t("menu.play"), start, true), bigButton(`${id}-back`, t(`${id}.back`), () => this.hooks.onExit())],
      errorEl,
      el("section", { class: "panel" }, el("h2", { text: t("menu.players") }), ...seats.map((s) => s.row), advanced.label),
      el("section", { class: "panel" }, el("h2", { text: t("menu.options") }),
        el("div", { class: "options-grid" }, ...options.fields, optionLabel(t("game.ai_speed"), speedSel), clock.label)),
      el("section", { class: `panel ${id}-rules`, "data-testid": `${id}-rules` },
        el("h2", { text: t(`${id}.rules_title`) }),
        ...this.rules().map((k) => el("p", { text: t(`${id}.rules.${k}`) })))));
  }
}

/** A board game's screen over a room connection (conn.select / conn.act / conn.onView, as in ui/game.js). */
export class BoardGameScreen {
  /** @param {{layout, players, seat, conn, onExit, speed}} opts */
  constructor(root, opts) {
    this.spec = this.constructor.spec;
    ensureStyles(this.spec.game);
    this.root = root;
    this.opts = opts;
    this.seat = opts.seat ?? null;
    this.state = null;
    this._build();
    this.board = this.makeBoard(this.boardEl, opts.layout, opts.conn);
    opts.conn.onView((v) => this.update(v));
    opts.conn.onError((e) => this.toast(errorText(e)));
    opts.conn.onStatus?.((s, detail) => showConnection(this.statusEl, this.screenEl, s, detail));
    opts.conn.onRoom?.(() => this.state && this.update(this.state));
    this._ticker = setInterval(() => tickClocks(this.cardsEl), 1000);
    this._unlang = onLangChange(() => this.state && this.update(this.state));
    followSeats(this, opts.conn, this.screenEl, opts.conn.room?.room);
    this._keys = (ev) => this._key(ev);
    document.addEventListener("keydown", this._keys);
  }

  /**
   * Keyboard play: the arrows move the board's cursor, Enter or Space play there (not on a focused control); the
   * camera's keys (Q/E turn, WASD pan, +/- zoom, R whole board) work for everyone, and a spectator's arrows pan.
   */
  _key(ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.target.closest?.("input, select, textarea")) return;
    const press = ev.key === "Enter" || ev.key === " ";
    if (press && ev.target !== document.body && !ev.target.closest?.(".board-area")) return;
    if (this.seat !== null && this.board.cursorKey?.(ev)) {
      ev.preventDefault();
      const at = this.board.cursor?.at;
      if (!press && at >= 0) this.announcer.say(this.board.cursor.label(at));
      return;
    }
    if (!press && this.board.cameraKey?.(ev)) ev.preventDefault();
  }

  /** Redraw the seat cards (the host's seat menu changed). */
  refreshSeats() {
    if (this.state) this.update(this.state);
  }

  /** Return the game's interactive board view in `root`, sending its inputs over `conn`. */
  makeBoard(_root, _layout, _conn) {
    throw new Error("a board game screen makes its board");
  }

  /** Return the game's controls before the AI speed (e.g. a pass button), and its lines under the seat cards. */
  controls() {
    return [];
  }

  panels() {
    return [];
  }

  /** Return the row's way out: back to the menu (`leave`, the game goes on) and leaving the seat for good. */
  exitControls(leave) {
    return [leave, leaveGame(this, this.opts.conn)];
  }

  /** Return the game's numbers on seat `p`'s card (an element). */
  cardStats(_v, _p) {
    return null;
  }

  /** Return the name of a seat's AI on its card. */
  aiLabel(player) {
    const own = `${this.spec.game}.ai.${player.ai}`;
    return has(own) ? t(own) : aiName(player.ai, player.aiName); // a level or an agent: "Nivel 2", "Agente Conquer"
  }

  /** Return the text of a log entry. */
  logText(e) {
    return `${this._name(e.seat)}: ${e.notation}`;
  }

  /** Return the turn banner's text while the game goes on. */
  turnBanner(v) {
    return v.turn === this.seat ? t("banner.your_turn") : t("banner.turn_of", { name: this._name(v.turn) });
  }

  /** Return the room's invite links (a room made here with several people's seats), folded after the first showing. */
  invitesBox() {
    if (!this.opts.invites) return null;
    const box = el("details", { class: "panel invites-box", "data-testid": "invites-box" },
      el("summary", { "data-i18n": "invite.title", text: t("invite.title") }), this.opts.invites());
    box.open = Boolean(this.opts.invitesOpen);
    return box;
  }

  /** Return the chat panel's options beyond the seat and its colour mark (chat.js ChatPanel). */
  chatOptions() {
    return {};
  }

  /** Return log entry `e`'s list item. */
  logEntry(e) {
    return el("li", { value: e.ply, "data-testid": "log-entry", class: e.capture || e.base ? "capture" : "",
      text: this.logText(e) });
  }

  /** Draw view `v`'s log, its newest line in view. */
  drawLog(v) {
    this.logEl.replaceChildren(...(v.log || []).map((e) => this.logEntry(e)));
    this.logEl.lastElementChild?.scrollIntoView?.({ block: "nearest" });
  }

  /** Return the i18n key of the move log's heading. */
  logTitle() {
    return "game.log";
  }

  /** Update the game's own controls and panels for view `v`. */
  updateControls(_v) {}

  /** Return the result's text of a finished view `v`, naming seats by `name(p)` (the replay viewer shares it). */
  result(_v, _name) {
    return "";
  }

  destroy() {
    this._unlang();
    document.removeEventListener("keydown", this._keys);
    clearInterval(this._ticker);
    this.opts.conn.close?.();
    this.root.replaceChildren();
  }

  _build() {
    const { game, title } = this.spec;
    this.boardEl = el("div", { class: "board-area" });
    this.cardsEl = el("div", { class: `${game}-cards`, "data-testid": "player-cards" });
    this.bannerEl = el("div", { class: "banner panel", "data-testid": "turn-banner" });
    this.logEl = el("ol", { class: "log", "data-testid": "move-log" });
    this.announcer = new Announcer(); // the banner and log are redrawn on every view: it alone speaks what changed
    this.statusEl = el("span", { class: "conn", "data-testid": "conn-status" });
    this.overEl = el("div", { class: "overlay over-box", "data-testid": "game-over-panel", hidden: true });
    const leave = el("button", { type: "button", "data-testid": "leave", onclick: () => this.opts.onExit?.() }, t("game.leave"));
    const speedSel = speedSelect({ "data-testid": "ai-speed", onchange: (ev) => this.opts.conn.setSpeed(ev.target.value) },
      this.opts.speed);
    this.chat = new ChatPanel(this.opts.conn, { canWrite: this.seat !== null,
      swatch: (p) => el("span", { class: `${this.spec.stone} p${p}`, "aria-hidden": "true" }), ...this.chatOptions() });
    if (!this.chat.onLines) this.chat.el.classList.add("panel"); // in the log's panel when it joins the log
    this.screenEl = el("div", { class: `${game}-screen game-screen`, "data-testid": "game-screen", "data-game": game },
      this.boardEl,
      el("aside", { class: `${game}-side` },
        el("h1", { text: title }),
        this.bannerEl, this.invitesBox(), this.cardsEl, ...this.panels(),
        el("div", { class: "row" }, ...this.controls().map((c) => Object.assign(c, { hidden: this.seat === null })),
          // a spectator gets no player controls (the server refuses their moves and speed changes)
          this.seat === null ? null : el("label", { class: "inline" }, el("span", { "data-i18n": "game.ai_speed", text: t("game.ai_speed") }), speedSel),
          overviewButton(this), ...this.exitControls(leave), langSwitch(), this.statusEl),
        // each where it can be used: keys where there is a keyboard, gestures where there is a touch screen
        el("p", { class: "muted keys-hint board-hint", "data-i18n": `${game}.keys_hint` }, t(`${game}.keys_hint`)),
        el("p", { class: "muted touch-hint board-hint", "data-i18n": `${game}.touch_hint` }, t(`${game}.touch_hint`)),
        el("section", { class: "panel" }, el("h2", { "data-i18n": this.logTitle(), text: t(this.logTitle()) }), this.logEl,
          ...(this.chat.onLines ? [this.chat.el] : [])),
        this.chat.onLines ? null : this.chat.el),
      this.overEl, this.announcer.el);
    this.root.replaceChildren(this.screenEl);
  }

  /** The seat's name now: the room's latest summary first (a seat may have changed hands), then the page's own. */
  _name(p) {
    // a default name the server gave (the seat's side, or its AI's name) follows the page's language
    return seatName(this.opts.conn?.players?.[p] || this.opts.players?.[p], `${this.spec.game}.seat.${this.spec.seats[p]}`);
  }

  toast(text) {
    const tst = el("div", { class: "toast", role: "alert", "data-testid": "toast", text });
    document.body.append(tst);
    setTimeout(() => tst.remove(), 3500);
  }

  /** Show a new state view from the server. */
  update(v) {
    this.state = v;
    const d = this.screenEl.dataset;
    d.ply = String(v.ply);
    d.turn = String(v.turn);
    d.over = String(v.over);
    this.board.update(v, this.seat);
    this.updateControls(v);
    this.cardsEl.replaceChildren(...[0, 1].map((p) => {
      const player = this.opts.conn.players?.[p] || this.opts.players?.[p] || {}; // the seat may have changed hands
      return el("div", { class: `seat-card${v.turn === p ? " to-move" : ""}`, "data-testid": `seat-card-${p}` },
        el("span", { class: `${this.spec.stone} p${p}`, "aria-hidden": "true" }),
        el("strong", { text: this._name(p) }),
        el("span", { class: "muted", text: player.ai ? this.aiLabel(player) : t("hud.human") }),
        this.seat === p ? el("span", { class: "you", text: t(`${this.spec.game}.you`) }) : null,
        this.cardStats(v, p),
        seatStatus(this.opts.conn.room, p, v.turn),
        seatMenu(this, this.opts.conn, p));
    }));
    disableInputs(this.screenEl);
    this.bannerEl.textContent = v.over ? this.result(v, (p) => this._name(p)) : this.turnBanner(v);
    this.announcer.update(v.ply, v.over ? "over" : v.turn, (n) => (v.log || []).slice(-n).map((e) => this.logText(e)),
      this.bannerEl.textContent);
    this.drawLog(v);
    if (v.over && !this._overShown) {
      this._overShown = true;
      this.overEl.hidden = false;
      this.overEl.replaceChildren(el("div", { class: "box" },
        el("h2", { text: t("end.title") }),
        el("p", { "data-testid": "game-over-reason", text: this.result(v, (p) => this._name(p)) }),
        el("div", { class: "row" },
          el("button", { type: "button", "data-testid": "over-close", onclick: () => (this.overEl.hidden = true) },
            t("end.look")),
          rematchButton(this, this.opts.conn),
          el("button", { type: "button", class: "primary", "data-testid": "over-menu", onclick: () => this.opts.onExit?.() },
            t("game.leave")))));
    }
  }
}

/** A board game's record in the replay viewer: the board after any ply, forward and back (buttons, slider, ← / →). */
export class BoardReplayScreen {
  /** @param {{onExit: Function, replay: object}} opts the record as GET /api/records/ID returns it */
  constructor(root, { onExit, replay }) {
    this.spec = this.constructor.spec;
    ensureStyles(this.spec.game);
    this.root = root;
    this.onExit = onExit;
    this.replay = replay;
    this.plies = replay.plies || 0;
    this.ply = 0;
    this.views = new RecordViews(replay.id, this.plies);
    this.players = (replay.players || []).map((id) => ({ name: id.startsWith("human:") ? id.slice(6) : this.aiName(id) }));
    // the replay's keys first (← → Home End Esc), then the camera's (Q/E turn, WASD and ↑ ↓ pan, +/- zoom, R)
    this._keys = (ev) => {
      if (replayKey(this, ev) || ev.ctrlKey || ev.metaKey || ev.altKey) return;
      if (this.board?.cameraKey?.(ev)) ev.preventDefault();
    };
  }

  /** Return the name of a record's AI player (a strategy id). */
  aiName(id) {
    return t(`${this.spec.game}.ai.${id}`);
  }

  /** Return the game's (non-interactive) board view in `root`. */
  makeBoard(_root, _layout) {
    throw new Error("a board replay screen makes its board");
  }

  /** Return the game's lines under the banner. */
  panels() {
    return [];
  }

  /** Return the banner's text of view `v` once over, naming seats by `name(p)` (the game screen's result). */
  result(_v, _name) {
    return "";
  }

  /** Return a log entry's text, naming seats by `name(p)`. */
  logText(e, name) {
    return `${name(e.seat)}: ${e.notation}`;
  }

  /** Update the game's own panels for view `v`. */
  updatePanels(_v, _name) {}

  async show() {
    const { game, title } = this.spec;
    this._detach(); // shown again on a language change: one set of listeners
    this.boardEl = el("div", { class: "board-area" });
    this.bannerEl = el("div", { class: "banner panel", "data-testid": "turn-banner" });
    const steps = replayControls(this);
    this.logEl = el("ol", { class: "log", "data-testid": "replay-log" });
    this.screenEl = el("div", { class: `${game}-screen replay-screen`, "data-testid": "replay", "data-game": game },
      this.boardEl,
      el("aside", { class: `${game}-side` },
        el("h1", { text: title }), this.bannerEl, ...this.panels(),
        el("div", { class: "row" }, ...steps),
        el("div", { class: "row" }, this.slider, this.plyEl),
        el("div", { class: "row" },
          overviewButton(this),
          el("button", { type: "button", "data-testid": "replay-exit", onclick: () => this.onExit() }, t("tutorial.exit")),
          langSwitch()),
        el("section", { class: "panel" }, el("h2", { text: t("game.log") }), this.logEl)));
    this.root.replaceChildren(this.screenEl);
    this.board = this.makeBoard(this.boardEl, this.replay.layout);
    document.addEventListener("keydown", this._keys);
    this._unlang = onLangChange(() => this.show());
    const ply = this.ply;
    this.ply = -1;
    await this.goto(ply);
  }

  _detach() {
    document.removeEventListener("keydown", this._keys);
    this._unlang?.();
    this._unlang = null;
  }

  destroy() {
    this._detach();
    this.root.replaceChildren();
  }

  async goto(ply) {
    const got = await this.views.at(ply);
    if (!got) return;
    const [at, v] = got;
    this.ply = at;
    this.board.update(v, null);
    const name = (p) => this.players[p]?.name || seatLabel(this.spec, p);
    this.bannerEl.textContent = v.over ? this.result(v, name) : t("banner.turn_of", { name: name(v.turn) });
    this.updatePanels(v, name);
    this.slider.value = String(at);
    this.plyEl.textContent = t("replay.ply_of", { n: at, total: this.plies });
    this.screenEl.dataset.ply = String(at);
    this.logEl.replaceChildren(...(v.log || []).map((e) => el("li", { value: e.ply, "data-testid": "log-entry",
      class: e.capture || e.base ? "capture" : "", text: this.logText(e, name) })));
  }
}
