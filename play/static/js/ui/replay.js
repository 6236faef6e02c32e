// The replay viewer: pick any saved record the server lists (ours or the arena's; each opens at its own shareable
// link, #replay=SOURCE/PATH), then step through it forward and back (buttons, slider, ← / →, Home / End) or let it
// play by itself at 0.5× to 4× (Space plays and pauses), with the move log naming every move's kind.

import { t, tn, has, getLang, onLangChange, langSwitch, errorText, aiName } from "../i18n.js";
import * as api from "../api.js";
import { DomainWheelView, PLAYER_KEYS, normaliseLayout, normaliseState } from "../board/domain_wheel.js";
import { el, logText, renderBanner, renderCards } from "./hud.js";
import { startAutoplay, stopAutoplay } from "./autoplay.js";
import { RecordViews, replayControls, replayKey } from "./screen_parts.js";

export class ReplayScreen {
  constructor(root, { onExit, record = null }) {
    this.root = root;
    this.onExit = onExit;
    this.recordId = record;
    this._keys = (ev) => this._key(ev);
  }

  async show() {
    this._unlang = onLangChange(() => (this.replay ? this._renderFrame() : this.show()));
    if (this.recordId) return this.open({ id: this.recordId });
    this.root.replaceChildren(el("p", { class: "loading", text: t("menu.loading") }));
    let list = [];
    let error = null;
    try {
      list = await api.records();
    } catch (err) {
      error = err;
    }
    let names = {};
    try {
      names = Object.fromEntries((await api.strategies()).map((s) => [s.id, s.display_name]));
    } catch {
      /* our own AIs are named by the page; others by their id */
    }
    const rows = list.map((r) => el("li", { "data-testid": "replay-row" },
      el("a", { class: "button", href: replayHash(r.id), "data-testid": "replay-item", "data-id": r.id,
        "aria-label": t("replay.open", { date: dateText(r.modified) }) }, dateText(r.modified)),
      " ", el("span", { "data-testid": "replay-summary", text: summaryText(r, names) })));
    this.root.replaceChildren(el("main", { class: "replay-list scroll", "data-testid": "replays" },
      el("header", { class: "menu-head" }, el("h1", { text: t("replay.title") }), langSwitch(),
        el("button", { type: "button", "data-testid": "replay-exit", onclick: () => this.onExit() }, t("tutorial.exit"))),
      error ? el("p", { class: "error-box", text: `${t("menu.error")}: ${errorText(error)}` }) : null,
      el("section", { class: "panel" }, el("h2", { text: t("replay.saved") }),
        rows.length ? el("ul", { class: "records" }, ...rows) : el("p", { class: "muted", text: t("replay.none") }))));
  }

  _error(err) {
    this.root.prepend(el("p", { class: "error-box", role: "alert", text: errorText(err) }));
  }

  /** Open a record the server lists: {id}. */
  async open(what) {
    this.replay = await api.openRecord(what.id);
    if (this.replay.game === "conquer") { // a Conquer record: its own replay screen
      const { ConquerReplayScreen } = await import("./conquer.js");
      this.delegate = new ConquerReplayScreen(this.root, { onExit: this.onExit, replay: this.replay });
      return this.delegate.show();
    }
    if (this.replay.game === "frontera") { // a Frontera record: its own replay screen, fog-free
      const { FronteraReplayScreen } = await import("./frontera.js");
      this.delegate = new FronteraReplayScreen(this.root, { onExit: this.onExit, replay: this.replay });
      return this.delegate.show();
    }
    if (this.replay.game === "alveole") { // another game's record: its own replay screen
      const { AlveoleReplayScreen } = await import("./alveole.js");
      this.delegate = new AlveoleReplayScreen(this.root, { onExit: this.onExit, replay: this.replay });
      return this.delegate.show();
    }
    let names = {};
    try {
      names = Object.fromEntries((await api.strategies()).map((s) => [s.id, s.display_name]));
    } catch {
      /* our own AIs are named by the page; others by their id */
    }
    // a record's players are strategy ids, or "human:NAME" for people
    this.layout = normaliseLayout(this.replay.layout, (this.replay.players || []).map((id) =>
      id.startsWith("human:") ? { name: id.slice(6), ai: null } : { name: null, ai: id, aiName: names[id] || id }));
    this.kinds = this.replay.kinds || [];
    this.plies = this.replay.plies;
    this.ply = 0;
    this.views = new RecordViews(this.replay.id, this.plies);
    this.moves = this.replay.moves || [];
    this._build();
    document.addEventListener("keydown", this._keys);
    await this.goto(0);
  }

  destroy() {
    this.pause();
    this.delegate?.destroy();
    document.removeEventListener("keydown", this._keys);
    this._unlang?.();
    this.view?.destroy();
    this.root.replaceChildren();
  }

  _build() {
    this.boardEl = el("div", { class: "board-wrap" });
    this.cardsEl = el("div", { class: "cards panel" });
    this.bannerEl = el("div", { class: "banner", "data-testid": "turn-banner" });
    const steps = replayControls(this);
    this.playBtn = el("button", { type: "button", class: "primary", "data-testid": "replay-play",
      onclick: () => (this.timer ? this.pause() : this.play()) }, t("replay.play"));
    this.speedSel = el("select", { "data-testid": "replay-speed", "aria-label": t("replay.speed") },
      ...REPLAY_SPEEDS.map((x) => el("option", { value: String(x), text: `${x.toLocaleString(getLang())}×` })));
    this.speedSel.value = "1";
    this.logEl = el("ol", { class: "log replay-log", "data-testid": "replay-log" });
    this.root.replaceChildren(el("div", { class: "replay-screen", "data-testid": "replay" },
      this.boardEl,
      el("div", { class: "hud-top" }, this.cardsEl, this.bannerEl,
        el("div", { class: "log-panel panel" }, el("h2", { text: t("game.log") }), this.logEl)),
      el("div", { class: "toolbar panel replay-bar" },
        this.playBtn, this.speedSel, ...steps, this.slider, this.plyEl,
        el("button", { type: "button", "data-testid": "replay-exit", onclick: () => this.onExit() }, t("tutorial.exit")),
        langSwitch())));
    this.view = new DomainWheelView(this.boardEl, this.layout, { interactive: false });
  }

  async goto(ply) {
    const got = await this.views.at(ply);
    if (!got) return;
    const [at, v] = got;
    this.ply = at;
    if (at === 0) this.firstTurn = v.turn ?? 0;
    this.current = normaliseState(this.layout, v);
    this._renderFrame();
  }

  _renderFrame() {
    if (!this.current) return;
    this.view.update(this.current);
    renderCards(this.cardsEl, this.layout, this.current, null);
    renderBanner(this.bannerEl, this.layout, this.current, null);
    this.slider.value = String(this.ply);
    this.plyEl.textContent = t("replay.ply_of", { n: this.ply, total: this.plies });
    this.root.querySelector(".replay-screen").dataset.ply = String(this.ply);
    // the moves played so far, newest first; the latest with what it caused (the view's `last`)
    const last = this.current.last;
    const items = [];
    for (let i = this.ply - 1; i >= 0 && items.length < 200; i--) {
      const entry = last && last.ply === i + 1 ? last : this._entry(i);
      items.push(el("li", { "data-testid": "log-entry", class: `p${entry.seat}${i + 1 === this.ply ? " current" : ""}` },
        el("span", { class: "ply", text: `${i + 1}.` }), " ", logText(this.layout, entry)));
    }
    this.logEl.replaceChildren(...items);
  }

  /** A log entry from the record's notation ("q,r>q,r", "pass", "end"); seats take turns from the first. */
  _entry(i) {
    const m = this.moves[i] || "";
    const seat = ((this.firstTurn ?? 0) + i) % 3;
    if (m === "pass") return { seat, action: "pass" };
    if (m === "end") return { seat, action: "end_request" };
    const [from, to] = m.split(">").map((c) => c.split(",").map(Number));
    return { seat, action: "move", from, to, kinds: this.kinds[i] || [] };
  }

  /** Play the record by itself from the current ply, one ply every second at 1× (the speed select divides it). */
  play() {
    startAutoplay(this);
  }

  pause() {
    stopAutoplay(this);
  }

  _playing(on) {
    if (!this.playBtn) return;
    this.playBtn.textContent = t(on ? "replay.pause" : "replay.play");
    this.playBtn.setAttribute("aria-pressed", String(on));
    this.root.querySelector(".replay-screen")?.setAttribute("data-playing", String(on));
  }

  _key(ev) {
    if (ev.key === " " && !ev.target.closest?.("button, input, select, a")) {
      ev.preventDefault();
      if (this.timer) this.pause();
      else this.play();
      return;
    }
    if (!replayKey(this, ev) && this.view.map.key(ev)) ev.preventDefault();
  }
}

/** Autoplay speeds: plies per second. */
const REPLAY_SPEEDS = [0.5, 1, 2, 4];

/** The shareable link of a record: #replay=SOURCE/PATH (slashes kept readable). */
export function replayHash(id) {
  return `#replay=${encodeURIComponent(id).replaceAll("%2F", "/")}`;
}

/** A record's date (the time its file was written) in the page's language. */
function dateText(seconds) {
  if (!Number.isFinite(seconds)) return "?";
  return new Date(seconds * 1000).toLocaleString(getLang(), { dateStyle: "medium", timeStyle: "short" });
}

/** A player of a record's list (a strategy id or "human:NAME") by the name a player knows. */
function playerText(id, names) {
  if (typeof id !== "string") return "?";
  return id.startsWith("human:") ? id.slice(6) : aiName(id, names[id]);
}

/** A seat's colour or side in the page's language (a record names winners by it). */
function seatText(game, seat) {
  if (typeof seat === "number") return has(`player.${PLAYER_KEYS[seat]}`) ? t(`player.${PLAYER_KEYS[seat]}`) : String(seat);
  if (has(`player.${seat}`) && !["alveole", "conquer", "frontera"].includes(game)) return t(`player.${seat}`);
  return has(`${game}.seat.${seat}`) ? t(`${game}.seat.${seat}`) : String(seat);
}

/** One line of the list: who played (by colour), who won, how long it was. */
function summaryText(r, names) {
  const parts = [];
  const game = r.game || "domain_wheel";
  // a Frontera record counts its players and names none
  const seats = (Array.isArray(r.players) ? r.players : []).map((id, p) => (game === "domain_wheel" ? `${t(`player.${PLAYER_KEYS[p]}`)}: ` : "")
    + playerText(id, names));
  if (seats.length) parts.push(seats.join(" · "));
  const winners = r.result?.winners;
  if (Array.isArray(winners)) {
    const who = winners.map((w) => {
      const p = typeof w === "number" ? w : PLAYER_KEYS.indexOf(w);
      const player = game === "domain_wheel" && r.players?.[p] ? ` (${playerText(r.players[p], names)})` : "";
      return seatText(game, w) + player;
    });
    parts.push(who.length ? t("replay.winner", { names: who.join(", ") }) : t("replay.no_winner"));
  } else parts.push(t(r.result ? "replay.no_winner" : "replay.unfinished"));
  if (Number.isInteger(r.plies)) parts.push(tn("replay.plies", r.plies));
  return parts.join(" — ");
}
