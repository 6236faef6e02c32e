// The Frontera screens (docs/FRONTERA.md, "Browser game"): its menu (map, world code, 2–6 players, fog, cards, clock)
// and its game screen: the map, the phase panel (the hidden deployment with undo and "Estoy listo", reinforcements,
// attacks by two clicks with the dice, the adjust window, regroup, end of turn), the cards panel and the forces
// panel. The room, seats, tokens, clock and AI turns are the play server's; every rule check is the server's: the
// page lights what a click may do and sends inputs ({type: "input", action, cell, from, to, count, cards}).

import { getLang, has, t } from "../i18n.js";
import { el } from "./hud.js";
import { FronteraBoard, UNKNOWN } from "../board/frontera.js";
import { BoardGameScreen, BoardMenuScreen, BoardReplayScreen, optionLabel } from "./board_game.js";
import { seatStatus } from "./presence.js";
import { leaveGame, seatMenu } from "./seat_menu.js";
import { chatLine } from "./chat.js";
import { notifyToggle, otherGames } from "./my_games.js";
import { ring } from "./bell.js";
import { startAutoplay, stopAutoplay } from "./autoplay.js";

export const GAME = "frontera";
const SEATS = ["red", "blue", "green", "yellow", "purple", "orange"];
// the creator picks the turn clock, 60 s, 1 h or 24 h (the rules page, "Preparación"): a room always has one, so
// a game left for the menu waits there (a room without a clock expires once nobody is connected, docs/PLAY.md)
const CLOCK_CHOICES = { choices: ["60", "3600", "86400"], fallback: "86400" };
const SPEC = { game: GAME, title: "Frontera", seats: SEATS, stone: "fr-stone", clocks: CLOCK_CHOICES };
const HAND_LIMIT = 5;
const FORCES_KEY = "dw.frontera.forces_open";

/** The Frontera menu: up to six seats (the first `players` play), the map, world code, fog and cards. */
export class FronteraMenuScreen extends BoardMenuScreen {
  static spec = SPEC;

  constructor(root, hooks) {
    // only the first `players` seat rows make the room
    super(root, { ...hooks, onPlay: (c) => hooks.onPlay({ ...c, players: c.players.slice(0, c.options.players) }) });
  }

  optionFields(_game, saved) {
    const select = (testid, values, text, value) => {
      const sel = el("select", { "data-testid": testid }, ...values.map((x) => el("option", { value: x, text: text(x) })));
      sel.value = String(value);
      return sel;
    };
    const mapSel = select("frontera-map", ["small", "medium", "large"], (m) => t(`frontera.map.${m}`), saved.map || "small");
    const players = select("frontera-players", [2, 3, 4, 5, 6], String, saved.players || 3);
    const world = el("input", { type: "text", maxlength: 32, "data-testid": "frontera-world", value: saved.world || "",
      placeholder: t("frontera.option.world_hint") });
    const fog = el("input", { type: "checkbox", "data-testid": "frontera-fog", checked: saved.fog || undefined });
    const cards = el("input", { type: "checkbox", "data-testid": "frontera-cards", checked: saved.cards === false ? undefined : "" });
    const showSeats = () => this.root.querySelectorAll(".seat-row").forEach((row, p) => {
      row.hidden = p >= Number(players.value);
    });
    players.addEventListener("change", showSeats);
    queueMicrotask(showSeats);
    setTimeout(showSeats, 0);
    const options = () => ({ map: mapSel.value, world: world.value.trim(), players: Number(players.value), fog: fog.checked,
      cards: cards.checked });
    return {
      fields: [optionLabel(t("frontera.option.map"), mapSel), optionLabel(t("frontera.option.players"), players),
        optionLabel(t("frontera.option.world"), world), optionLabel(t("frontera.option.fog"), fog),
        optionLabel(t("frontera.option.cards"), cards)],
      options,
      remembered: options,
    };
  }

  rules() {
    return ["goal", "deploy", "attack", "regroup", "cards", "fog", "map"];
  }
}

/**
 * Put `children` in `panel` unless it already shows the same markup: a view or room message that changes nothing
 * there keeps the elements under the pointer (Chromium drops a click whose button left the page between press and
 * release) and what the player typed or dragged in them (the regroup count, the garrison slider).
 */
function show(panel, children) {
  const kept = children.filter((c) => c !== null && c !== undefined);
  const html = kept.map((c) => (typeof c === "string" ? c : c.outerHTML)).join("");
  if (SHOWN.get(panel) === html) return;
  SHOWN.set(panel, html);
  panel.replaceChildren(...kept);
}
/** the markup each panel shows (show()) */
const SHOWN = new WeakMap();

/** Sort dice high to low. */
const sorted = (dice) => [...(dice || [])].sort((a, b) => b - a);

/** Return the dice panel's parts for attack entry `e`: both sides' dice in their seats' colours, sorted and paired. */
function diceParts(e, layout) {
  const { attacker, defender } = e.roll;
  const a = sorted(e.roll.attack);
  const d = sorted(e.roll.defence);
  const die = (n, p, cls) => el("span", { class: `fr-die p${p} ${cls}`, "data-testid": "fr-die", text: String(n) });
  const pairs = Array.from({ length: Math.max(a.length, d.length) }, (_, i) => {
    const paired = i < a.length && i < d.length;
    const tie = paired && a[i] === d[i];
    const attackWins = paired && a[i] > d[i];
    return el("div", { class: `fr-pair${tie ? " tie" : ""}`, "data-testid": "fr-pair", "data-tie": String(tie) },
      i < a.length ? die(a[i], attacker, paired && attackWins ? "wins" : paired ? "loses" : "unpaired") : el("span"),
      el("span", { class: "vs", text: tie ? t("frontera.tie") : paired ? "×" : "" }),
      i < d.length ? die(d[i], defender, paired && !attackWins ? "wins" : paired ? "loses" : "unpaired") : el("span"));
  });
  const name = (tt) => (tt === null ? "?" : layout.territories[tt].name);
  // each side's column under its role (the rules page's "Atacante · Defensor"), the dice in the seats' colours
  const head = el("div", { class: "fr-pair fr-sides" }, el("span", { text: t("frontera.attacker") }), el("span"),
    el("span", { text: t("frontera.defender") }));
  return [el("h2", { text: t("frontera.dice_title", { from: name(e.source), to: name(e.target) }) }), head,
    ...pairs, ...(e.conquered ? [el("p", { class: "fr-conquered", text: t("frontera.conquered") })] : [])];
}

/** Return a log entry's text, naming seats by `name(p)` (the game screen and the replay viewer share it). */
function entryText(e, layout, name) {
  const where = (tt) => (tt === null || tt === undefined ? "?" : layout.territories[tt].name);
  return t(`frontera.log.${e.kind}`, { who: name(e.seat), t: where(e.territory ?? e.target), from: where(e.source),
    to: where(e.target), n: e.count ?? "?" });
}

/** Return the end's text of a finished view: the winner, or the turn limit's end without one. */
function result(v, name) {
  return v.winners.length ? t("frontera.end.winner", { name: name(v.winners[0]) }) : t("frontera.end.truncated");
}

/** The Frontera game screen over a room connection. */
export class FronteraScreen extends BoardGameScreen {
  static spec = SPEC;

  makeBoard(root, layout, conn) {
    this.layout = layout;
    this.conn = conn;
    this.selected = null;
    const board = new FronteraBoard(root, layout, { label: t("frontera.board_label"),
      onTerritory: (tt, how) => this.click(tt, how) });
    board.svg.addEventListener("click", (ev) => ev.target === board.svg && this.cancel()); // a click on the water
    return board;
  }

  /** Drop the selected source (Escape, or a click on the water). */
  cancel() {
    if ((this.selected === null && !this.pending) || !this.state) return;
    this.selected = null;
    this.pending = null;
    this.updateControls(this.state);
  }

  /** Escape drops the selection; W A S D, the arrows, + - and 0 move the map (not while typing in a field). */
  _key(ev) {
    if (ev.key === "Escape") return void this.cancel();
    const typing = ev.target.closest?.("input, select, textarea");
    if (!typing && !ev.ctrlKey && !ev.metaKey && !ev.altKey && this.board.camera.key(ev)) return void ev.preventDefault();
    super._key(ev);
  }

  controls() {
    // built once and kept (show()): data-i18n lets a change of language reach them
    const button = (id, key, fn) => el("button", { type: "button", "data-testid": id, "data-i18n": key, onclick: fn }, t(key));
    this.readyBtn = button("fr-ready", "frontera.ready", () => this.send({ action: "ready" }));
    this.undoBtn = button("fr-undo", "frontera.undo", () => this.undo());
    this.endAttackBtn = button("fr-end-attack", "frontera.end_attack", () => this.afterWindow({ action: "end_attack" }));
    this.endTurnBtn = button("fr-end-turn", "frontera.end_turn", () => this.endTurn());
    this.blitzBox = el("input", { type: "checkbox", "data-testid": "fr-blitz" });
    this.blitzLbl = el("label", { class: "inline" }, this.blitzBox, el("span", { "data-i18n": "frontera.blitz", text: t("frontera.blitz") }));
    // the phase's buttons live in the phase panel, beside what they act on (the shared row keeps speed and leave);
    // they stay in the page for good: redrawing the panel never moves them (see show())
    this.buttonRow = el("div", { class: "row fr-buttons" }, this.readyBtn, this.undoBtn, this.endAttackBtn, this.endTurnBtn,
      this.blitzLbl);
    this.phaseEl.append(this.buttonRow);
    return [];
  }

  panels() {
    this.phaseLinesEl = el("div", { class: "fr-phase-lines" });
    this.phaseEl = el("section", { class: "panel fr-phase", "data-testid": "fr-phase" }, this.phaseLinesEl);
    this.diceEl = el("section", { class: "panel fr-dice", "data-testid": "fr-dice", hidden: true });
    this.windowEl = el("section", { class: "panel fr-window", "data-testid": "fr-window", hidden: true });
    this.cardsPanel = el("section", { class: "panel fr-cards", "data-testid": "fr-cards" });
    // the rules page's forces panel: the regions (redrawn with each view), your other games, and at its foot the
    // turn notifications, the way back to the menu and leaving the game (built once: a redraw never moves them)
    this.regionsEl = el("div", { class: "fr-regions-box" });
    this.others = otherGames(this.opts.conn.room?.room ?? null, () => ring());
    const foot = el("div", { class: "fr-forces-foot" }, notifyToggle("fr-notify"),
      el("div", { class: "row" },
        el("button", { type: "button", "data-testid": "leave", "data-i18n": "frontera.to_menu",
          onclick: () => (this.opts.onMenu || this.opts.onExit)?.() }, t("frontera.to_menu")),
        // leaving abandons (the territories become ownerless), so the page says so before it asks once
        leaveGame(this, this.opts.conn, { ask: "frontera.leave", confirm: "frontera.leave_confirm" })));
    this.forcesEl = el("details", { class: "panel fr-forces", "data-testid": "fr-forces" },
      el("summary", { "data-i18n": "frontera.forces_title", text: t("frontera.forces_title") }), this.regionsEl, this.others.section, foot);
    this.forcesEl.open = localStorage.getItem(FORCES_KEY) !== "0";
    this.forcesEl.addEventListener("toggle", () => localStorage.setItem(FORCES_KEY, this.forcesEl.open ? "1" : "0"));
    return [this.phaseEl, this.diceEl, this.windowEl, this.cardsPanel, this.forcesEl];
  }

  /**
   * What players write and what happens on the board read in one column, in order (the rules page, "Charla"): the
   * chat's lines go into the move log (drawLog), the chat panel keeps its field under it.
   */
  chatOptions() {
    return { onLines: () => this.state && this.drawLog(this.state) };
  }

  logTitle() {
    return "frontera.feed_title";
  }

  /**
   * Draw the log's events and the chat's lines in one list: a line said at ply p (the server stamps it) after the
   * events up to p. Only the list scrolls to its newest line: a scroll into view would move the whole side column
   * too, and on a phone the phase panel (Estoy listo) would leave the screen.
   */
  drawLog(v) {
    const swatch = (p) => el("span", { class: `fr-stone p${p}`, "aria-hidden": "true" });
    const items = [
      ...(v.log || []).map((e, i) => [e.ply, 0, i, this.logEntry(e)]),
      ...(this.opts.conn.chat || []).map((line, i) => [line.ply ?? Infinity, 1, i, chatLine(line, swatch)]),
    ].sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
    this.logEl.replaceChildren(...items.map((x) => x[3]));
    this.logEl.scrollTop = this.logEl.scrollHeight;
  }

  /** The way out lives at the foot of the forces panel (panels()), as the rules page places it. */
  exitControls() {
    return [];
  }

  destroy() {
    this.others.stop();
    super.destroy();
  }

  /** Send one input; resolve true once a newer view arrives, false after a refusal (shown as a toast). */
  send(input) {
    return new Promise((resolve) => {
      (this.waiters ||= []).push({ ply: this.state?.ply ?? -1, resolve });
      this.conn.request({ type: "input", ...input }).catch((err) => {
        this.toast(err?.body?.message || err?.message || String(err));
        resolve(false);
      });
    });
  }

  get mine() {
    const v = this.state;
    if (!v || this.seat === null || v.over) return false;
    // a ready seat may still take armies back in the deployment
    return v.state.phase === "setup" ? v.state.status[this.seat] === 0 : v.acting.includes(this.seat);
  }

  neighbours(tt) {
    const x = this.layout.territories[tt];
    return [...x.land, ...x.sea];
  }

  /** Own territories reachable from `src` through own territories. */
  reachable(st, src) {
    const seen = new Set([src]);
    const todo = [src];
    while (todo.length) {
      for (const u of this.neighbours(todo.pop())) {
        if (!seen.has(u) && st.owner[u] === this.seat) {
          seen.add(u);
          todo.push(u);
        }
      }
    }
    seen.delete(src);
    return [...seen];
  }

  targets(st, src) {
    if (src === null || st.owner[src] !== this.seat) return [];
    const phase = st.phase;
    if (phase === "regroup") return st.armies[src] >= 2 && st.turn?.moves_left ? this.reachable(st, src) : [];
    if (phase === "attack" || phase === "window" || (phase === "reinforce" && st.turn?.pool === 0)) {
      return st.armies[src] >= 2 ? this.neighbours(src).filter((u) => st.owner[u] !== this.seat) : [];
    }
    return [];
  }

  click(tt, how) {
    if (!this.mine) return;
    const st = this.state.state;
    const own = st.owner[tt] === this.seat;
    if (st.phase === "setup") {
      if (!own) return;
      if (how.alt) {
        const n = st.placed[tt];
        if (n > 0) this.send({ action: "take_back", cell: tt, count: how.all ? n : 1 });
      } else if (st.deploy_left > 0) this.send({ action: "place", cell: tt, count: how.all ? st.deploy_left : 1 });
      return;
    }
    if (how.alt) return; // a right click takes a provisional army back, in the deployment only
    const pool = st.turn?.pool || 0;
    if ((st.phase === "reinforce" || st.phase === "forced") && pool > 0) {
      if (own) this.send({ action: "deploy", cell: tt, count: how.all ? pool : 1 });
      return;
    }
    if (this.selected !== null && this.targets(st, this.selected).includes(tt)) {
      const src = this.selected;
      if (st.phase === "regroup" && how.all) this.send({ action: "regroup", from: src, to: tt, count: st.armies[src] - 1 });
      else if (st.phase === "regroup") {
        // the origin, then the destination, and then how many go (the rules page, "Reagrupe"): the move panel asks
        this.pending = { from: src, to: tt };
        this.updateControls(this.state);
      } else this.afterWindow({ action: this.blitzBox.checked ? "blitz" : "attack", from: src, to: tt });
      return;
    }
    this.selected = own && this.targets(st, tt).length ? tt : null;
    this.pending = null;
    this.updateControls(this.state); // the lit targets, and in regroup the count of armies to move
  }

  /** Send the pending regroup move with the count its panel shows (all but one unless changed). */
  move() {
    const st = this.state?.state;
    const m = this.pending;
    if (!st || !m) return;
    const want = Number(this.phaseLinesEl.querySelector("[data-testid=fr-move-count]")?.value || 0);
    const most = st.armies[m.from] - 1;
    this.pending = null;
    this.selected = null;
    this.send({ action: "regroup", from: m.from, to: m.to, count: want >= 1 && want <= most ? want : most });
  }

  undo() {
    const st = this.state?.state;
    if (!st) return;
    const mine = (this.state.log || []).filter((e) => e.seat === this.seat && e.kind === "place").reverse();
    const last = mine.find((e) => st.placed[e.territory] > 0)?.territory ?? st.placed.findIndex((n) => n > 0);
    if (last >= 0) this.send({ action: "take_back", cell: last, count: 1 });
  }

  async endTurn() {
    if (this.state?.state.phase !== "regroup" && !(await this.afterWindow({ action: "end_attack" }))) return;
    this.send({ action: "end_turn" });
  }

  /**
   * Send `input` after closing an open adjust window at the value its slider shows: the window closes with any
   * other action keeping the value set so far (R-6.2, A32), and the engine would keep the armies that crossed.
   */
  async afterWindow(input) {
    const w = this.state?.state.phase === "window" ? this.state.state.turn?.window : null;
    const slider = this.windowEl.querySelector("[data-testid=fr-occupy-count]");
    if (w && slider && Number(slider.value) !== w[2] && !(await this.send({ action: "occupy", count: Number(slider.value) }))) {
      return false;
    }
    return this.send(input);
  }

  /** The last attack this view knows of: its territories, seats and dice (the log's entry, or the roll seen). */
  lastAttack(v) {
    const e = [...(v.log || [])].reverse().find((x) => x.kind === "attack" || x.kind === "blitz");
    if (!e || e.ply !== v.ply) return null;
    return e;
  }

  drawMarks() {
    const v = this.state;
    const st = v.state;
    const lit = this.pending ? [this.pending.to] : this.mine ? this.targets(st, this.selected) : [];
    const marks = { selected: this.selected, lit };
    const attack = this.lastAttack(v);
    if (attack && attack.target !== null && attack.seat !== this.seat) {
      // watching another player: an arrow in the attacker's colour, or (attacker fogged) the defender alone pulses
      if (attack.source !== null) marks.arrow = [attack.source, attack.target];
      else marks.defending = attack.target;
      marks.arrowSeat = attack.seat;
    }
    this.board.draw(st, marks);
  }

  updateControls(v) {
    const st = v.state;
    if (this.selected !== null && (!this.mine || !this.targets(st, this.selected).length)) this.selected = null;
    if (this.pending && !(this.selected === this.pending.from && this.targets(st, this.selected).includes(this.pending.to))) {
      this.pending = null; // the move's origin or destination changed hands, or the phase ended
    }
    const mine = this.mine;
    const phase = st.phase;
    const pool = st.turn?.pool || 0;
    // the adjust window closes at its value with any other action (R-6.2, A32): attacking again, or ending the attack
    const openAttack = mine && (phase === "attack" || phase === "window" || (phase === "reinforce" && pool === 0));
    this.readyBtn.hidden = !(mine && phase === "setup");
    this.readyBtn.disabled = st.deploy_left > 0;
    this.undoBtn.hidden = !(mine && phase === "setup");
    this.readyBtn.hidden ||= !v.acting.includes(this.seat);
    this.undoBtn.disabled = !st.placed.some((n) => n > 0);
    this.endAttackBtn.hidden = !openAttack;
    this.endTurnBtn.hidden = !(mine && (phase === "regroup" || openAttack));
    this.blitzLbl.style.display = openAttack ? "" : "none"; // a label's CSS display would override `hidden`
    show(this.phaseLinesEl, this.phaseLines(v));
    this.drawDice(v);
    this.drawWindow(v);
    this.drawCards(v);
    this.drawForces(v);
    this.drawMarks();
    this.screenEl.dataset.phase = phase;
  }

  phaseLines(v) {
    const st = v.state;
    const lines = [el("h2", { text: t(`frontera.phase.${st.phase}`) })];
    const room = this.opts.conn.room;
    if (room?.status === "waiting" && room.clock) {
      // the waiting room: the turn clock starts once every person has opened their link (docs/PLAY.md)
      lines.push(el("p", { class: "fr-waiting", "data-testid": "fr-waiting", text: t("frontera.waiting") }));
    }
    if (st.phase === "setup") {
      if (this.seat !== null) lines.push(el("p", { "data-testid": "fr-deploy-left", "data-left": st.deploy_left,
        text: t("frontera.deploy_left", { n: st.deploy_left }) }), el("p", { class: "muted", text: t("frontera.deploy_help") }));
      lines.push(el("ul", { class: "fr-ready-list", "data-testid": "fr-ready-list" }, ...st.status.map((_, p) => el("li",
        { "data-ready": String(!v.acting.includes(p)) },
        el("span", { class: `fr-stone p${p}` }), ` ${this._name(p)}: `,
        t(v.acting.includes(p) ? "frontera.deploying" : "frontera.is_ready")))));
      return lines;
    }
    const turn = st.turn;
    if (!turn) return lines;
    if (turn.pool > 0) lines.push(el("p", { "data-testid": "fr-pool", text: t("frontera.pool", { n: turn.pool }) }));
    if (st.phase === "attack" || st.phase === "reinforce" || st.phase === "window") {
      lines.push(el("p", { class: "muted", text: t("frontera.attack_help") }));
    }
    if (st.phase === "regroup") {
      lines.push(el("p", { "data-testid": "fr-moves-left", text: t("frontera.moves_left", { n: turn.moves_left }) }),
        el("p", { class: "muted", text: t("frontera.regroup_help") }));
      const m = this.pending;
      if (m) {
        const most = st.armies[m.from] - 1;
        const name = (tt) => this.layout.territories[tt].name;
        const count = el("input", { type: "range", min: 1, max: most, value: most, "data-testid": "fr-move-count",
          "aria-label": t("frontera.move_count") });
        const out = el("output", { text: String(most) });
        count.addEventListener("input", () => (out.textContent = count.value));
        lines.push(el("div", { class: "fr-move", "data-testid": "fr-move-panel" },
          el("p", { text: t("frontera.move_title", { from: name(m.from), to: name(m.to) }) }),
          el("div", { class: "row" }, count, out,
            el("button", { type: "button", class: "primary", "data-testid": "fr-move", onclick: () => this.move() },
              t("frontera.move")),
            el("button", { type: "button", "data-testid": "fr-move-cancel", onclick: () => this.cancel() }, t("frontera.cancel")))));
      }
    }
    return lines;
  }

  drawDice(v) {
    const e = this.lastAttack(v);
    this.diceEl.hidden = !e?.roll;
    if (e?.roll) show(this.diceEl, diceParts(e, this.layout));
  }

  drawWindow(v) {
    const w = v.state.phase === "window" && this.mine ? v.state.turn?.window : null;
    this.windowEl.hidden = !w;
    if (!w) return void SHOWN.delete(this.windowEl); // the next conquest's window starts afresh
    // the window opens on the armies that crossed by themselves, one per die: doing nothing keeps them
    const [, target, crossed, lo, hi] = w;
    const input = el("input", { type: "range", min: lo, max: hi, value: crossed, "data-testid": "fr-occupy-count" });
    const out = el("output", { "data-testid": "fr-occupy-value", text: String(crossed) });
    input.addEventListener("input", () => (out.textContent = input.value));
    show(this.windowEl, [el("h2", { text: t("frontera.window_title", { to: this.layout.territories[target].name }) }),
      el("p", { "data-testid": "fr-quota", text: t("frontera.window_help", { a: crossed, lo, hi, quota: v.state.turn.quota_left }) }),
      el("div", { class: "row" }, input, out,
        el("button", { type: "button", class: "primary", "data-testid": "fr-occupy",
          onclick: () => this.send({ action: "occupy", count: Number(input.value) }) }, t("frontera.occupy")))]);
  }

  drawCards(v) {
    const st = v.state;
    this.cardsPanel.hidden = this.layout.options?.cards === false; // a game without cards has no cards panel
    if (this.cardsPanel.hidden) return;
    const rows = [el("h2", { text: t("frontera.cards_title") })];
    if (this.seat !== null) {
      rows.push(el("ul", { class: "fr-hand", "data-testid": "fr-hand" }, ...st.hand.map((c) => el("li", { class: `fr-card ${c.symbol}`,
        "data-testid": "fr-card" }, el("span", { class: "sym", text: t(`frontera.symbol.${c.symbol}`) }),
        c.territory === null ? "" : ` ${this.layout.territories[c.territory].name}`))));
      const canTrade = this.mine && (st.phase === "reinforce" || st.phase === "forced");
      if (st.hand.length >= HAND_LIMIT && this.mine) rows.push(el("p", { class: "fr-forced", "data-testid": "fr-forced-trade",
        text: t("frontera.forced_trade") }));
      for (const set of canTrade ? st.sets : []) {
        const names = set.map((id) => t(`frontera.symbol.${st.hand.find((c) => c.id === id)?.symbol || "wild"}`)).join(" + ");
        rows.push(el("button", { type: "button", "data-testid": "fr-trade", onclick: () => this.send({ action: "trade", cards: set }) },
          t("frontera.trade", { set: names })));
      }
    }
    rows.push(el("p", { class: "muted", "data-testid": "fr-card-counts", text: st.card_counts.map((n, p) => `${this._name(p)}: ${n}`)
      .join(" · ") }));
    show(this.cardsPanel, rows);
  }

  drawForces(v) {
    const st = v.state;
    const regions = this.layout.regions.map((r) => {
      const own = this.seat === null ? 0 : r.territories.filter((tt) => st.owner[tt] === this.seat).length;
      return { r, own, share: own / r.territories.length };
    }).sort((a, b) => b.share - a.share || a.r.id - b.r.id);
    show(this.regionsEl, [el("ol", { class: "fr-regions" }, ...regions.map(({ r, own }) => el("li", { "data-testid": "fr-region-row", "data-region": r.id },
        el("strong", { text: r.name }),
        el("span", { class: "muted", text: ` ${t("frontera.region_line", { own, n: r.territories.length, bonus: r.bonus })}` }),
        st.region_owner[r.id] >= 0 ? el("span", { class: `fr-stone p${st.region_owner[r.id]}` }) : null)))]);
  }

  cardStats(v, p) {
    const st = v.state;
    return el("span", { class: "scores", "data-testid": `fr-count-${p}` },
      t("frontera.territories", { n: st.territory_counts[p], need: this.layout.win_threshold }));
  }

  turnBanner(v) {
    const st = v.state;
    if (st.phase === "setup") return this.mine ? t("frontera.banner.deploy") : t("frontera.banner.wait_deploy");
    return v.turn === this.seat ? t("banner.your_turn") : t("banner.turn_of", { name: this._name(v.turn) });
  }

  logText(e) {
    return entryText(e, this.layout, (p) => this._name(p));
  }

  result(v, name) {
    return result(v, name);
  }

  /**
   * Take a new view; draw the latest one at the next frame. AI seats can send many views a second, and a page that
   * drew each one could fall behind its socket (the server drops a client hundreds of messages behind).
   */
  update(v) {
    this.waiters = (this.waiters || []).filter((w) => (v.ply > w.ply ? void w.resolve(true) : true));
    if (!this.latest || v.ply >= this.latest.ply) this.latest = v; // a redraw of the drawn view keeps a newer one
    this.frame ||= requestAnimationFrame(() => {
      this.frame = null;
      this.render(this.latest);
    });
  }

  /** Draw view `v`: the shared screen's parts, then 2 to 6 seat cards (the shared screen draws two). */
  render(v) {
    super.update(v);
    const n = this.layout.players;
    this.cardsEl.replaceChildren(...Array.from({ length: n }, (_, p) => {
      const player = this.opts.conn.players?.[p] || {};
      const out = v.state.status[p] !== 0;
      return el("div", { class: `seat-card${v.acting.includes(p) ? " to-move" : ""}${out ? " out" : ""}`, "data-testid": `seat-card-${p}` },
        el("span", { class: `fr-stone p${p}`, "aria-hidden": "true" }),
        el("strong", { text: this._name(p) }),
        el("span", { class: "muted", text: player.ai ? this.aiLabel(player) : t("hud.human") }),
        this.seat === p ? el("span", { class: "you", text: t("frontera.you") }) : null,
        this.cardStats(v, p),
        seatStatus(this.opts.conn.room, p, v.turn),
        out ? null : seatMenu(this, this.opts.conn, p)); // a seat out of the game has nothing to hand on
    }));
  }
}

/** Autoplay speeds of the replay viewer: plies per second. */
const REPLAY_SPEEDS = [0.5, 1, 2, 4];

/**
 * A finished Frontera game in the replay viewer: the whole board after any ply (no fog, no hands), each seat's
 * territories, the last attack's dice and the actions before it; forward and back, or by itself at 0.5× to 4×
 * (Play, or Space).
 */
export class FronteraReplayScreen extends BoardReplayScreen {
  static spec = SPEC;

  constructor(root, opts) {
    // a Frontera record counts its players and names none: the seats go by their colours
    super(root, { ...opts, replay: { ...opts.replay, players: [] } });
    const steps = this._keys;
    this._keys = (ev) => {
      if (ev.key !== " " || ev.target.closest?.("button, input, select, a")) return steps(ev);
      ev.preventDefault();
      return this.timer ? this.pause() : this.play();
    };
  }

  aiName(id) {
    return has(`frontera.ai.${id}`) ? t(`frontera.ai.${id}`) : id;
  }

  makeBoard(root, layout) {
    this.layout = layout;
    return new FronteraBoard(root, layout, { label: t("frontera.board_label"), onTerritory: () => {} });
  }

  panels() {
    this.playBtn = el("button", { type: "button", class: "primary", "data-testid": "replay-play",
      "aria-pressed": String(Boolean(this.timer)), onclick: () => (this.timer ? this.pause() : this.play()) },
    t(this.timer ? "replay.pause" : "replay.play"));
    this.speedSel = el("select", { "data-testid": "replay-speed", "aria-label": t("replay.speed") },
      ...REPLAY_SPEEDS.map((x) => el("option", { value: String(x), text: `${x.toLocaleString(getLang())}×` })));
    this.speedSel.value = this.speed || "1";
    this.speedSel.addEventListener("change", () => (this.speed = this.speedSel.value));
    this.scoresEl = el("ul", { class: "fr-replay-counts", "data-testid": "replay-scores" });
    this.diceEl = el("section", { class: "panel fr-dice", "data-testid": "fr-dice", hidden: true });
    return [el("div", { class: "row" }, this.playBtn, this.speedSel), this.scoresEl, this.diceEl];
  }

  updatePanels(v, name) {
    const st = v.state;
    this.screenEl.dataset.playing = String(Boolean(this.timer));
    show(this.scoresEl, st.territory_counts.map((n, p) => el("li", { "data-testid": `replay-count-${p}` },
      el("span", { class: `fr-stone p${p}`, "aria-hidden": "true" }),
      ` ${name(p)}: ${t("frontera.territories", { n, need: this.layout.win_threshold })}`)));
    const e = v.last?.roll ? v.last : null;
    this.diceEl.hidden = !e;
    if (e) show(this.diceEl, diceParts(e, this.layout));
  }

  logText(e, name) {
    return entryText(e, this.layout, name);
  }

  result(v, name) {
    return result(v, name);
  }

  /** Play the record by itself from the current ply, one ply a second at 1× (the speed select divides it). */
  play() {
    startAutoplay(this);
  }

  pause() {
    stopAutoplay(this);
  }

  _playing(on) {
    this.playBtn.textContent = t(on ? "replay.pause" : "replay.play");
    this.playBtn.setAttribute("aria-pressed", String(on));
    this.screenEl?.setAttribute("data-playing", String(on));
  }

  destroy() {
    this.pause();
    super.destroy();
  }
}

export { UNKNOWN };
