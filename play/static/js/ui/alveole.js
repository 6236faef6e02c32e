// The Alveole screens: its menu (seats, names, the ply limit, AI speed) and its game screen (board, seat cards, turn
// banner, move log, the end with its reason and the winning group). The room, seats, tokens and AI turns are the
// play server's, exactly as for Domain Wheel; only the board and the panels are Alveole's.

import { t, langSwitch, onLangChange } from "../i18n.js";
import * as api from "../api.js";
import { el } from "./hud.js";
import { AlveoleBoard } from "../board/alveole.js";

export const GAME = "alveole";
const SEATS = ["black", "white"];
const SPEEDS = ["normal", "fast", "instant"];
const STORAGE = "dw.menu.alveole";

/** Load the Alveole stylesheet once (the page's index.html lists Domain Wheel's only). */
function ensureStyles() {
  if (document.querySelector("link[data-alveole-css]")) return;
  document.head.append(el("link", { rel: "stylesheet", href: new URL("../../css/alveole.css", import.meta.url).href,
    "data-alveole-css": "" }));
}

const seatLabel = (p) => t(`alveole.seat.${SEATS[p]}`);

function remembered() {
  try {
    return JSON.parse(localStorage.getItem(STORAGE) || "null") || {};
  } catch {
    return {};
  }
}

/** The Alveole menu: who sits where, the ply limit and the AI speed; Play creates a room like Domain Wheel's. */
export class AlveoleMenuScreen {
  /** @param {{onPlay: Function, onExit: Function}} hooks */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
  }

  async show() {
    ensureStyles();
    this.root.replaceChildren(el("p", { class: "loading", text: t("menu.loading") }));
    let game;
    let strategies;
    try {
      game = await api.gameMenu(GAME);
      strategies = await api.strategiesFor(GAME);
    } catch (err) {
      this.root.replaceChildren(el("p", { class: "error-box", text: `${t("menu.error")}: ${err.message}` }));
      return;
    }
    if (!game || game.id !== GAME) {
      this.root.replaceChildren(el("p", { class: "error-box", text: t("alveole.not_hosted") }));
      return;
    }
    // the seats this server offers for Alveole: its own AIs, then the checkpoints, search seats and packages
    const label = (s) => (s.kind === "scripted" ? t(`alveole.ai.${s.id}`) : s.display_name);
    const defaultAI = [...strategies].reverse().find((s) => s.kind === "scripted")?.id;
    const saved = remembered();
    const seats = SEATS.map((name, p) => {
      const nameIn = el("input", { type: "text", maxlength: 24, "data-testid": `alveole-seat-name-${p}`,
        "aria-label": t("menu.name_of", { seat: seatLabel(p) }), value: saved.names?.[p] || seatLabel(p) });
      const kindSel = el("select", { "data-testid": `alveole-seat-kind-${p}`,
        "aria-label": t("menu.kind_of", { seat: seatLabel(p) }) },
      el("option", { value: "human", text: t("menu.human") }),
      ...strategies.map((s) => el("option", { value: s.id, text: label(s) })));
      const want = saved.kinds?.[p] ?? (p === 0 ? "human" : defaultAI || "human");
      kindSel.value = [...kindSel.options].some((o) => o.value === want) ? want : "human";
      return { nameIn, kindSel, row: el("div", { class: "seat-row" },
        el("span", { class: `stone p${p}`, "aria-hidden": "true" }),
        el("strong", { text: seatLabel(p) }), nameIn, kindSel) };
    });
    const limit = game.options.find((o) => o.name === "max_plies");
    const pliesIn = el("input", { type: "number", min: limit.min, max: limit.max, step: 1, "data-testid": "opt-max_plies",
      value: saved.max_plies ?? limit.default });
    const speedSel = el("select", { "data-testid": "menu-ai-speed", "aria-label": t("game.ai_speed") },
      ...SPEEDS.map((sp) => el("option", { value: sp, text: t(`speed.${sp}`) })));
    speedSel.value = saved.speed || "normal";
    const errorEl = el("p", { class: "error-box", hidden: true, "data-testid": "menu-error", role: "alert" });
    const start = async () => {
      errorEl.hidden = true;
      const players = seats.map(({ nameIn, kindSel }, p) => ({
        name: nameIn.value.trim() || seatLabel(p),
        strategy: kindSel.value === "human" ? null : kindSel.value,
      }));
      try {
        localStorage.setItem(STORAGE, JSON.stringify({ names: players.map((x) => x.name),
          kinds: seats.map((s) => s.kindSel.value), max_plies: Number(pliesIn.value), speed: speedSel.value }));
      } catch {
        /* not remembered */
      }
      try {
        await this.hooks.onPlay({ game: GAME, options: { max_plies: Number(pliesIn.value) }, players,
          ai_speed: speedSel.value });
      } catch (err) {
        errorEl.hidden = false;
        errorEl.textContent = err.message;
      }
    };
    this.root.replaceChildren(el("main", { class: "menu-screen scroll", "data-testid": "alveole-menu" },
      el("header", { class: "menu-head" },
        el("h1", { text: "Alveole" }),
        el("p", { class: "tagline", text: t("alveole.tagline") }),
        langSwitch()),
      el("div", { class: "menu-actions row" },
        el("button", { type: "button", class: "primary big", "data-testid": "play", onclick: start }, t("menu.play")),
        el("button", { type: "button", class: "big", "data-testid": "alveole-back", onclick: () => this.hooks.onExit() },
          t("alveole.back"))),
      errorEl,
      el("section", { class: "panel" }, el("h2", { text: t("menu.players") }), ...seats.map((s) => s.row)),
      el("section", { class: "panel" }, el("h2", { text: t("menu.options") }),
        el("div", { class: "options-grid" },
          el("label", { class: "opt int" }, el("span", { text: `${t("alveole.option.max_plies")} (${limit.min}–${limit.max})` }),
            pliesIn),
          el("label", { class: "opt" }, el("span", { text: t("game.ai_speed") }), speedSel))),
      el("section", { class: "panel alveole-rules", "data-testid": "alveole-rules" },
        el("h2", { text: t("alveole.rules_title") }),
        ...["move", "jump", "capture", "win", "stuck"].map((k) => el("p", { text: t(`alveole.rules.${k}`) })))));
  }
}

/** The Alveole game screen over a room connection (conn.select / conn.act / conn.onView, as in ui/game.js). */
export class AlveoleScreen {
  /** @param {{layout, players, seat, conn, onExit, speed}} opts */
  constructor(root, opts) {
    ensureStyles();
    this.root = root;
    this.opts = opts;
    this.seat = opts.seat ?? null;
    this.state = null;
    this._build();
    this.board = new AlveoleBoard(this.boardEl, opts.layout, {
      label: t("alveole.board_label"),
      destinations: async (qr) => (await opts.conn.select(qr)).destinations || [],
      onMove: (from, to) => opts.conn.act({ action: "move", from, to }),
    });
    opts.conn.onView((v) => this.update(v));
    opts.conn.onError((e) => this.toast(e.message || String(e)));
    opts.conn.onStatus?.((s) => {
      this.statusEl.textContent = s === "open" ? "" : t(`conn.${s}`);
    });
    opts.conn.onRoom?.(() => this.state && this.update(this.state));
    this._unlang = onLangChange(() => this.state && this.update(this.state));
  }

  destroy() {
    this._unlang();
    this.opts.conn.close?.();
    this.root.replaceChildren();
  }

  _build() {
    this.boardEl = el("div", { class: "board-area" });
    this.cardsEl = el("div", { class: "alveole-cards", "data-testid": "player-cards" });
    this.bannerEl = el("div", { class: "banner panel", "data-testid": "turn-banner", role: "status", "aria-live": "polite" });
    this.logEl = el("ol", { class: "log", "data-testid": "move-log" });
    this.statusEl = el("span", { class: "conn", "data-testid": "conn-status" });
    this.overEl = el("div", { class: "overlay over-box", "data-testid": "game-over-panel", hidden: true });
    const leave = el("button", { type: "button", "data-testid": "leave", onclick: () => this.opts.onExit?.() }, t("game.leave"));
    const speedSel = el("select", { "data-testid": "ai-speed", "aria-label": t("game.ai_speed"),
      onchange: () => this.opts.conn.setSpeed(speedSel.value) },
    ...SPEEDS.map((s) => el("option", { value: s }, t(`speed.${s}`))));
    speedSel.value = this.opts.speed || "normal";
    this.screenEl = el("div", { class: "alveole-screen game-screen", "data-testid": "game-screen", "data-game": GAME },
      this.boardEl,
      el("aside", { class: "alveole-side" },
        el("h1", { text: "Alveole" }),
        this.bannerEl, this.cardsEl,
        el("div", { class: "row" }, el("label", { class: "inline" }, el("span", { text: t("game.ai_speed") }), speedSel),
          leave, langSwitch(), this.statusEl),
        el("section", { class: "panel" }, el("h2", { text: t("game.log") }), this.logEl)),
      this.overEl);
    this.root.replaceChildren(this.screenEl);
  }

  _name(p) {
    return this.opts.players?.[p]?.name || seatLabel(p);
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
    this.cardsEl.replaceChildren(...[0, 1].map((p) => {
      const player = this.opts.players?.[p] || {};
      return el("div", { class: `seat-card${v.turn === p ? " to-move" : ""}`, "data-testid": `seat-card-${p}` },
        el("span", { class: `stone p${p}`, "aria-hidden": "true" }),
        el("strong", { text: this._name(p) }),
        el("span", { class: "muted", text: player.ai ? t(`alveole.ai.${player.ai}`) : t("hud.human") }),
        this.seat === p ? el("span", { class: "you", text: t("alveole.you") }) : null,
        el("span", { class: "stats", "data-testid": `seat-stats-${p}`,
          text: t("alveole.stats", { pieces: v.pieces[p], groups: v.groups[p] }) }));
    }));
    this.bannerEl.textContent = v.over ? this._result() : v.turn === this.seat ? t("banner.your_turn")
      : t("banner.turn_of", { name: this._name(v.turn) });
    this.logEl.replaceChildren(...(v.log || []).map((e) => el("li", { value: e.ply, "data-testid": "log-entry",
      class: e.capture ? "capture" : "",
      text: `${this._name(e.seat)}: ${e.notation}${e.capture ? ` (${t("alveole.capture")})` : ""}` })));
    this.logEl.lastElementChild?.scrollIntoView?.({ block: "nearest" });
    if (v.over && !this._overShown) {
      this._overShown = true;
      this.overEl.hidden = false;
      this.overEl.replaceChildren(el("div", { class: "box" },
        el("h2", { text: t("end.title") }),
        el("p", { "data-testid": "game-over-reason", text: this._result() }),
        el("div", { class: "row" },
          el("button", { type: "button", "data-testid": "over-close", onclick: () => (this.overEl.hidden = true) },
            t("end.look")),
          el("button", { type: "button", class: "primary", "data-testid": "over-menu", onclick: () => this.opts.onExit?.() },
            t("game.leave")))));
    }
  }

  _result() {
    const v = this.state;
    if (v.truncated) return t("alveole.end.truncated", { n: v.ply });
    const w = v.winners[0];
    return t(`alveole.end.${v.end_reason}`, { name: this._name(w), loser: this._name(1 - w) });
  }
}

/** An Alveole record in the replay viewer: the board after any ply, forward and back (buttons, slider, ← / →). */
export class AlveoleReplayScreen {
  /** @param {{onExit: Function, replay: object}} opts the record as GET /api/records/ID returns it */
  constructor(root, { onExit, replay }) {
    ensureStyles();
    this.root = root;
    this.onExit = onExit;
    this.replay = replay;
    this.plies = replay.plies || 0;
    this.ply = 0;
    this.cache = new Map();
    this.players = (replay.players || []).map((id) => ({ name: id.startsWith("human:") ? id.slice(6) : t(`alveole.ai.${id}`) }));
    this._keys = (ev) => this._key(ev);
  }

  async show() {
    this._detach(); // shown again on a language change: one set of listeners
    this.boardEl = el("div", { class: "board-area" });
    this.bannerEl = el("div", { class: "banner panel", "data-testid": "turn-banner" });
    this.slider = el("input", { type: "range", min: 0, max: this.plies, value: 0, "data-testid": "replay-slider",
      "aria-label": t("replay.position"), oninput: () => this.goto(Number(this.slider.value)) });
    this.plyEl = el("span", { "data-testid": "replay-ply", class: "ply-counter" });
    this.logEl = el("ol", { class: "log", "data-testid": "replay-log" });
    const b = (testid, label, fn) => el("button", { type: "button", "data-testid": testid, "aria-label": t(label),
      title: t(label), onclick: fn }, t(`${label}_short`));
    this.screenEl = el("div", { class: "alveole-screen replay-screen", "data-testid": "replay", "data-game": GAME },
      this.boardEl,
      el("aside", { class: "alveole-side" },
        el("h1", { text: "Alveole" }), this.bannerEl,
        el("div", { class: "row" },
          b("replay-first", "replay.first", () => this.goto(0)),
          b("replay-prev", "replay.prev", () => this.goto(this.ply - 1)),
          b("replay-next", "replay.next", () => this.goto(this.ply + 1)),
          b("replay-last", "replay.last", () => this.goto(this.plies))),
        el("div", { class: "row" }, this.slider, this.plyEl),
        el("div", { class: "row" },
          el("button", { type: "button", "data-testid": "replay-exit", onclick: () => this.onExit() }, t("tutorial.exit")),
          langSwitch()),
        el("section", { class: "panel" }, el("h2", { text: t("game.log") }), this.logEl)));
    this.root.replaceChildren(this.screenEl);
    this.board = new AlveoleBoard(this.boardEl, this.replay.layout, { label: t("alveole.board_label"),
      destinations: async () => [], onMove: () => {} });
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
    ply = Math.max(0, Math.min(this.plies, ply));
    const token = (this._tok = (this._tok || 0) + 1);
    let v = this.cache.get(ply);
    if (!v) {
      v = await api.recordView(this.replay.id, ply);
      this.cache.set(ply, v);
    }
    if (token !== this._tok) return;
    this.ply = ply;
    this.board.update(v, null);
    const name = (p) => this.players[p]?.name || seatLabel(p);
    this.bannerEl.textContent = v.over
      ? (v.truncated ? t("alveole.end.truncated", { n: v.ply })
        : t(`alveole.end.${v.end_reason}`, { name: name(v.winners[0]), loser: name(1 - v.winners[0]) }))
      : t("banner.turn_of", { name: name(v.turn) });
    this.slider.value = String(ply);
    this.plyEl.textContent = t("replay.ply_of", { n: ply, total: this.plies });
    this.screenEl.dataset.ply = String(ply);
    this.logEl.replaceChildren(...(v.log || []).map((e) => el("li", { value: e.ply, "data-testid": "log-entry",
      class: e.capture ? "capture" : "", text: `${name(e.seat)}: ${e.notation}` })));
  }

  _key(ev) {
    if (ev.target.closest?.("input, select")) return;
    const steps = { ArrowRight: 1, ArrowLeft: -1 };
    if (steps[ev.key]) {
      ev.preventDefault();
      this.goto(this.ply + steps[ev.key]);
    } else if (ev.key === "Home") this.goto(0);
    else if (ev.key === "End") this.goto(this.plies);
    else if (ev.key === "Escape") this.onExit();
  }
}
