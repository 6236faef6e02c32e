// The replay viewer: pick any saved record the server lists (ours or the arena's), then step
// through it forward and back (buttons, slider, ← / →, Home / End) with the move log.

import { t, onLangChange, langSwitch } from "../i18n.js";
import * as api from "../api.js";
import { DomainWheelView, normaliseLayout, normaliseState } from "../board/domain_wheel.js";
import { el, logText, renderBanner, renderCards } from "./hud.js";
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
    const rows = list.map((r) => el("li", {},
      el("button", { type: "button", "data-testid": "replay-item", "data-id": r.id, onclick: () => this.open({ id: r.id }) },
        r.name || r.id),
      " ", el("span", { class: "muted", text: this._summary(r) })));
    this.root.replaceChildren(el("main", { class: "replay-list scroll", "data-testid": "replays" },
      el("header", { class: "menu-head" }, el("h1", { text: t("replay.title") }), langSwitch(),
        el("button", { type: "button", "data-testid": "replay-exit", onclick: () => this.onExit() }, t("tutorial.exit"))),
      error ? el("p", { class: "error-box", text: `${t("menu.error")}: ${error.message}` }) : null,
      el("section", { class: "panel" }, el("h2", { text: t("replay.saved") }),
        rows.length ? el("ul", { class: "records" }, ...rows) : el("p", { class: "muted", text: t("replay.none") }))));
  }

  _summary(r) {
    const s = r.summary || r;
    const parts = [];
    if (s.players) parts.push(s.players.join(" · "));
    if (s.plies !== undefined && s.plies !== null) parts.push(t("replay.plies", { n: s.plies }));
    if (s.result?.winners) parts.push(`${t("end.winner")}: ${s.result.winners.join(", ")}`);
    if (r.source) parts.push(r.source);
    return parts.join(" — ");
  }

  _error(err) {
    this.root.prepend(el("p", { class: "error-box", role: "alert", text: err.message }));
  }

  /** Open a record the server lists: {id}. */
  async open(what) {
    this.replay = await api.openRecord(what.id);
    if (this.replay.game === "conquer") { // a Conquer record: its own replay screen
      const { ConquerReplayScreen } = await import("./conquer.js");
      this.delegate = new ConquerReplayScreen(this.root, { onExit: this.onExit, replay: this.replay });
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
      /* strategy ids are shown as they are */
    }
    // a record's players are strategy ids, or "human:NAME" for people
    this.layout = normaliseLayout(this.replay.layout, (this.replay.players || []).map((id) =>
      id.startsWith("human:") ? { name: id.slice(6), ai: null } : { name: null, ai: id, aiName: names[id] || id }));
    this.plies = this.replay.plies;
    this.ply = 0;
    this.views = new RecordViews(this.replay.id, this.plies);
    this.moves = this.replay.moves || [];
    this._build();
    document.addEventListener("keydown", this._keys);
    await this.goto(0);
  }

  destroy() {
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
    this.logEl = el("ol", { class: "log replay-log", "data-testid": "replay-log" });
    this.root.replaceChildren(el("div", { class: "replay-screen", "data-testid": "replay" },
      this.boardEl,
      el("div", { class: "hud-top" }, this.cardsEl, this.bannerEl,
        el("div", { class: "log-panel panel" }, el("h2", { text: t("game.log") }), this.logEl)),
      el("div", { class: "toolbar panel replay-bar" },
        ...steps, this.slider, this.plyEl,
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
    return { seat, action: "move", from, to, kinds: [] };
  }

  _key(ev) {
    if (!replayKey(this, ev) && this.view.map.key(ev)) ev.preventDefault();
  }
}
