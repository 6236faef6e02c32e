// The Conquer screens: its menu (seats, names, board size, scoring method, start, AI speed) and its game screen
// (the dot grid, seat cards with the score by both methods, turn banner, pass button, log, the end with its reason).
// The room, seats, tokens and AI turns are the play server's, exactly as for the other games; only the board and
// the panels are Conquer's.

import { t, langSwitch, onLangChange } from "../i18n.js";
import * as api from "../api.js";
import { el } from "./hud.js";
import { ConquerBoard } from "../board/conquer.js";

export const GAME = "conquer";
const SEATS = ["red", "blue"];
const SPEEDS = ["normal", "fast", "instant"];
const SIZES = [[9, 9], [15, 15], [39, 32]];
const STORAGE = "dw.menu.conquer";

/** Load the Conquer stylesheet once (the page's index.html lists Domain Wheel's only). */
function ensureStyles() {
  if (document.querySelector("link[data-conquer-css]")) return;
  document.head.append(el("link", { rel: "stylesheet", href: new URL("../../css/conquer.css", import.meta.url).href,
    "data-conquer-css": "" }));
}

const seatLabel = (p) => t(`conquer.seat.${SEATS[p]}`);

function remembered() {
  try {
    return JSON.parse(localStorage.getItem(STORAGE) || "null") || {};
  } catch {
    return {};
  }
}

/** The Conquer menu: who sits where, the board, the scoring and the AI speed; Play creates a room. */
export class ConquerMenuScreen {
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
      this.root.replaceChildren(el("p", { class: "error-box", text: t("conquer.not_hosted") }));
      return;
    }
    // the seats this server offers for Conquer: its own AIs, then the checkpoints, search seats and packages
    const label = (s) => (s.kind === "scripted" ? t(`conquer.ai.${s.id}`) : s.display_name);
    const defaultAI = [...strategies].reverse().find((s) => s.kind === "scripted")?.id;
    const saved = remembered();
    const seats = SEATS.map((name, p) => {
      const nameIn = el("input", { type: "text", maxlength: 24, "data-testid": `conquer-seat-name-${p}`,
        "aria-label": t("menu.name_of", { seat: seatLabel(p) }), value: saved.names?.[p] || seatLabel(p) });
      const kindSel = el("select", { "data-testid": `conquer-seat-kind-${p}`,
        "aria-label": t("menu.kind_of", { seat: seatLabel(p) }) },
      el("option", { value: "human", text: t("menu.human") }),
      ...strategies.map((s) => el("option", { value: s.id, text: label(s) })));
      const want = saved.kinds?.[p] ?? (p === 0 ? "human" : defaultAI || "human");
      kindSel.value = [...kindSel.options].some((o) => o.value === want) ? want : "human";
      return { nameIn, kindSel, row: el("div", { class: "seat-row" },
        el("span", { class: `cq-stone p${p}`, "aria-hidden": "true" }),
        el("strong", { text: seatLabel(p) }), nameIn, kindSel) };
    });
    const sizeSel = el("select", { "data-testid": "conquer-size", "aria-label": t("conquer.option.size") },
      ...SIZES.map(([w, h]) => el("option", { value: `${w}x${h}`, text: `${w} × ${h}` })));
    sizeSel.value = saved.size || "15x15";
    const scoringSel = el("select", { "data-testid": "conquer-scoring", "aria-label": t("conquer.option.scoring") },
      ...["dots", "territory"].map((m) => el("option", { value: m, text: t(`conquer.scoring.${m}`) })));
    scoringSel.value = saved.scoring || "dots";
    const startSel = el("select", { "data-testid": "conquer-start", "aria-label": t("conquer.option.start") },
      ...["empty", "cross"].map((s) => el("option", { value: s, text: t(`conquer.start.${s}`) })));
    startSel.value = saved.start || "empty";
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
      const [width, height] = sizeSel.value.split("x").map(Number);
      try {
        localStorage.setItem(STORAGE, JSON.stringify({ names: players.map((x) => x.name),
          kinds: seats.map((s) => s.kindSel.value), size: sizeSel.value, scoring: scoringSel.value,
          start: startSel.value, speed: speedSel.value }));
      } catch {
        /* not remembered */
      }
      try {
        await this.hooks.onPlay({ game: GAME, options: { width, height, scoring: scoringSel.value, start: startSel.value },
          players, ai_speed: speedSel.value });
      } catch (err) {
        errorEl.hidden = false;
        errorEl.textContent = err.message;
      }
    };
    const opt = (label, input) => el("label", { class: "opt" }, el("span", { text: label }), input);
    this.root.replaceChildren(el("main", { class: "menu-screen scroll", "data-testid": "conquer-menu" },
      el("header", { class: "menu-head" },
        el("h1", { text: "Conquer" }),
        el("p", { class: "tagline", text: t("conquer.tagline") }),
        langSwitch()),
      el("div", { class: "menu-actions row" },
        el("button", { type: "button", class: "primary big", "data-testid": "play", onclick: start }, t("menu.play")),
        el("button", { type: "button", class: "big", "data-testid": "conquer-back", onclick: () => this.hooks.onExit() },
          t("conquer.back"))),
      errorEl,
      el("section", { class: "panel" }, el("h2", { text: t("menu.players") }), ...seats.map((s) => s.row)),
      el("section", { class: "panel" }, el("h2", { text: t("menu.options") }),
        el("div", { class: "options-grid" },
          opt(t("conquer.option.size"), sizeSel), opt(t("conquer.option.scoring"), scoringSel),
          opt(t("conquer.option.start"), startSel), opt(t("game.ai_speed"), speedSel))),
      el("section", { class: "panel conquer-rules", "data-testid": "conquer-rules" },
        el("h2", { text: t("conquer.rules_title") }),
        ...["place", "ring", "territory", "bases", "rescue", "end"].map((k) => el("p", { text: t(`conquer.rules.${k}`) })))));
  }
}

/** The Conquer game screen over a room connection (conn.act / conn.onView, as in ui/game.js). */
export class ConquerScreen {
  /** @param {{layout, players, seat, conn, onExit, speed}} opts */
  constructor(root, opts) {
    ensureStyles();
    this.root = root;
    this.opts = opts;
    this.seat = opts.seat ?? null;
    this.state = null;
    this._build();
    this.board = new ConquerBoard(this.boardEl, opts.layout, {
      label: t("conquer.board_label"),
      // the generic conn.act sends the action as the message type: a placement is a move from a point to itself
      onPlace: (xy) => opts.conn.act({ action: "move", from: xy, to: xy }),
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
    this.cardsEl = el("div", { class: "conquer-cards", "data-testid": "player-cards" });
    this.bannerEl = el("div", { class: "banner panel", "data-testid": "turn-banner", role: "status", "aria-live": "polite" });
    this.logEl = el("ol", { class: "log", "data-testid": "move-log" });
    this.statusEl = el("span", { class: "conn", "data-testid": "conn-status" });
    this.overEl = el("div", { class: "overlay over-box", "data-testid": "game-over-panel", hidden: true });
    this.passBtn = el("button", { type: "button", "data-testid": "pass", onclick: () => this.opts.conn.act({ action: "pass" }) },
      t("conquer.pass"));
    const leave = el("button", { type: "button", "data-testid": "leave", onclick: () => this.opts.onExit?.() }, t("game.leave"));
    const speedSel = el("select", { "data-testid": "ai-speed", "aria-label": t("game.ai_speed"),
      onchange: () => this.opts.conn.setSpeed(speedSel.value) },
    ...SPEEDS.map((s) => el("option", { value: s }, t(`speed.${s}`))));
    speedSel.value = this.opts.speed || "normal";
    this.scoringEl = el("p", { class: "muted", "data-testid": "scoring-method" });
    this.screenEl = el("div", { class: "conquer-screen game-screen", "data-testid": "game-screen", "data-game": GAME },
      this.boardEl,
      el("aside", { class: "conquer-side" },
        el("h1", { text: "Conquer" }),
        this.bannerEl, this.cardsEl, this.scoringEl,
        el("div", { class: "row" }, this.passBtn,
          el("label", { class: "inline" }, el("span", { text: t("game.ai_speed") }), speedSel),
          leave, langSwitch(), this.statusEl),
        el("section", { class: "panel" }, el("h2", { text: t("game.log") }), this.logEl)),
      this.overEl);
    this.root.replaceChildren(this.screenEl);
  }

  _name(p) {
    return this.opts.players?.[p]?.name || seatLabel(p);
  }

  _aiLabel(player) {
    return ["random", "heuristic"].includes(player.ai) ? t(`conquer.ai.${player.ai}`) : player.aiName || player.ai;
  }

  toast(text) {
    const tst = el("div", { class: "toast", role: "alert", "data-testid": "toast", text });
    document.body.append(tst);
    setTimeout(() => tst.remove(), 3500);
  }

  _logText(e) {
    const who = this._name(e.seat);
    if (e.action === "pass") return t("conquer.log.pass", { who });
    const ev = (e.events || []).find((x) => x.type === "capture" || x.type === "base");
    const base = t("conquer.log.place", { who, x: e.point[0], y: e.point[1] });
    if (!ev) return base;
    const key = ev.type === "capture" ? (ev.rescued ? "conquer.log.capture_rescue" : "conquer.log.capture") : "conquer.log.base";
    return `${base} — ${t(key, { dead: ev.dead, sealed: ev.sealed, rescued: ev.rescued, name: this._name(ev.player) })}`;
  }

  /** Show a new state view from the server. */
  update(v) {
    this.state = v;
    const d = this.screenEl.dataset;
    d.ply = String(v.ply);
    d.turn = String(v.turn);
    d.over = String(v.over);
    this.board.update(v, this.seat);
    const myTurn = this.seat !== null && v.turn === this.seat && !v.over;
    this.passBtn.disabled = !myTurn;
    this.cardsEl.replaceChildren(...[0, 1].map((p) => {
      const player = this.opts.players?.[p] || {};
      const dotsCls = v.scoring === "dots" ? "primary" : "";
      const terrCls = v.scoring === "territory" ? "primary" : "";
      return el("div", { class: `seat-card${v.turn === p ? " to-move" : ""}`, "data-testid": `seat-card-${p}` },
        el("span", { class: `cq-stone p${p}`, "aria-hidden": "true" }),
        el("strong", { text: this._name(p) }),
        el("span", { class: "muted", text: player.ai ? this._aiLabel(player) : t("hud.human") }),
        this.seat === p ? el("span", { class: "you", text: t("conquer.you") }) : null,
        el("span", { class: "scores" },
          el("span", { class: dotsCls, "data-testid": `score-dots-${p}`, "data-value": v.scores.dots[p],
            text: t("conquer.score.dots", { n: v.scores.dots[p] }) }),
          " · ",
          el("span", { class: terrCls, "data-testid": `score-territory-${p}`, "data-value": v.scores.territory[p],
            text: t("conquer.score.territory", { n: v.scores.territory[p] }) })));
    }));
    this.scoringEl.textContent = t("conquer.scoring_note", { method: t(`conquer.scoring.${v.scoring}`) });
    let banner;
    if (v.over) banner = this._result();
    else if (v.turn === this.seat) banner = v.passes ? t("conquer.banner.after_pass") : t("banner.your_turn");
    else banner = t("banner.turn_of", { name: this._name(v.turn) });
    this.bannerEl.textContent = banner;
    this.logEl.replaceChildren(...(v.log || []).map((e) => el("li", { value: e.ply, "data-testid": "log-entry",
      class: e.capture || e.base ? "capture" : "", text: this._logText(e) })));
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
    if (v.truncated) return t("conquer.end.truncated", { n: v.ply });
    const s = v.scores[v.scoring];
    const how = t(`conquer.end.${v.end_reason}`);
    if (!v.winners.length) return `${how} ${t("conquer.end.draw", { a: s[0], b: s[1] })}`;
    const w = v.winners[0];
    return `${how} ${t("conquer.end.winner", { name: this._name(w), a: s[w], b: s[1 - w],
      method: t(`conquer.scoring.${v.scoring}`) })}`;
  }
}

/** A Conquer record in the replay viewer: the board after any ply, forward and back (buttons, slider, ← / →). */
export class ConquerReplayScreen {
  /** @param {{onExit: Function, replay: object}} opts the record as GET /api/records/ID returns it */
  constructor(root, { onExit, replay }) {
    ensureStyles();
    this.root = root;
    this.onExit = onExit;
    this.replay = replay;
    this.plies = replay.plies || 0;
    this.ply = 0;
    this.cache = new Map();
    this.players = (replay.players || []).map((id) => ({
      name: id.startsWith("human:") ? id.slice(6) : ["random", "heuristic"].includes(id) ? t(`conquer.ai.${id}`) : id,
    }));
    this._keys = (ev) => this._key(ev);
  }

  async show() {
    this._detach(); // shown again on a language change: one set of listeners
    this.boardEl = el("div", { class: "board-area" });
    this.bannerEl = el("div", { class: "banner panel", "data-testid": "turn-banner" });
    this.scoresEl = el("p", { class: "muted", "data-testid": "replay-scores" });
    this.slider = el("input", { type: "range", min: 0, max: this.plies, value: 0, "data-testid": "replay-slider",
      "aria-label": t("replay.position"), oninput: () => this.goto(Number(this.slider.value)) });
    this.plyEl = el("span", { "data-testid": "replay-ply", class: "ply-counter" });
    this.logEl = el("ol", { class: "log", "data-testid": "replay-log" });
    const b = (testid, label, fn) => el("button", { type: "button", "data-testid": testid, "aria-label": t(label),
      title: t(label), onclick: fn }, t(`${label}_short`));
    this.screenEl = el("div", { class: "conquer-screen replay-screen", "data-testid": "replay", "data-game": GAME },
      this.boardEl,
      el("aside", { class: "conquer-side" },
        el("h1", { text: "Conquer" }), this.bannerEl, this.scoresEl,
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
    this.board = new ConquerBoard(this.boardEl, this.replay.layout, { label: t("conquer.board_label"), onPlace: () => {} });
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
    let banner;
    if (!v.over) banner = t("banner.turn_of", { name: name(v.turn) });
    else if (v.truncated) banner = t("conquer.end.truncated", { n: v.ply });
    else {
      const s = v.scores[v.scoring];
      const how = t(`conquer.end.${v.end_reason}`);
      banner = v.winners.length
        ? `${how} ${t("conquer.end.winner", { name: name(v.winners[0]), a: s[v.winners[0]], b: s[1 - v.winners[0]],
          method: t(`conquer.scoring.${v.scoring}`) })}`
        : `${how} ${t("conquer.end.draw", { a: s[0], b: s[1] })}`;
    }
    this.bannerEl.textContent = banner;
    this.scoresEl.textContent = [0, 1].map((p) => `${name(p)}: ${t("conquer.score.dots", { n: v.scores.dots[p] })} · `
      + `${t("conquer.score.territory", { n: v.scores.territory[p] })}`).join(" — ");
    this.slider.value = String(ply);
    this.plyEl.textContent = t("replay.ply_of", { n: ply, total: this.plies });
    this.screenEl.dataset.ply = String(ply);
    this.logEl.replaceChildren(...(v.log || []).map((e) => el("li", { value: e.ply, "data-testid": "log-entry",
      class: e.capture || e.base ? "capture" : "",
      text: e.action === "pass" ? t("conquer.log.pass", { who: name(e.seat) })
        : t("conquer.log.place", { who: name(e.seat), x: e.point[0], y: e.point[1] }) })));
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
