// The tutorial ("Cómo jugar", rule 11.11): the 20 situations of tests/scenarios/ in order, drawn by the real board
// view, each with a short explanation in our own words (i18n keys tutorial.NN.title / tutorial.NN.text). A step
// shows the moment its text speaks of (the scenario's show.frame) and frames its show.focus cells in the part of the
// board no panel covers (docs/PLAY.md "A tutorial that shows what it says").
// → / Space / Enter: forward; ←: back; Esc: out.

import { t, onLangChange, langSwitch, errorText } from "../i18n.js";
import * as api from "../api.js";
import { DomainWheelView, cellIndex, normaliseLayout, normaliseState } from "../board/domain_wheel.js";
import { el, renderBanner, renderCards } from "./hud.js";

export class TutorialScreen {
  constructor(root, { onExit, start = null }) {
    this.root = root;
    this.onExit = onExit;
    this.start = start; // a step id ("paso_05") or null for the first
    this._keys = (ev) => this._key(ev);
  }

  async show() {
    this.root.replaceChildren(el("p", { class: "loading", text: t("menu.loading") }));
    try {
      this.data = await api.tutorial();
    } catch (err) {
      this.root.replaceChildren(el("p", { class: "error-box", text: `${t("menu.error")}: ${errorText(err)}` }),
        el("button", { type: "button", onclick: () => this.onExit() }, t("tutorial.exit")));
      return;
    }
    this.steps = this.data.steps;
    this.index = Math.max(0, this.steps.findIndex((s) => s.id === this.start));
    document.addEventListener("keydown", this._keys);
    this._unlang = onLangChange(() => this._render());
    this._render();
  }

  destroy() {
    document.removeEventListener("keydown", this._keys);
    this._unlang?.();
    this.view?.destroy();
    this.root.replaceChildren();
  }

  /** The moment the step's text speaks of (its data's show.frame, served as frame_view) and what to point at. */
  _frame(step) {
    const which = step.show?.frame || "before";
    const view = step.frame_view || step.view;
    let highlight = which === "before" ? step.highlight || null : null;
    if (which === "checkpoint") highlight = step.actions.find((a) => a.checkpoint)?.highlight || null;
    if (!highlight && which === "before") {
      const first = step.actions.find((a) => a.action === "move" && a.destinations?.length);
      if (first) highlight = { from: first.from, destinations: first.destinations, to: first.to };
    }
    // a piece the text is about (the new knight of a conquest) is marked when no move is shown
    if (!highlight && step.show?.mark) highlight = { from: step.show.mark, destinations: [] };
    return { view, highlight };
  }

  _render() {
    const step = this.steps[this.index];
    const n = String(step.index).padStart(2, "0");
    const layoutJSON = this.data.layouts[step.layout];
    if (!this.layout || this.layout.key !== layoutJSON.key) {
      this.view?.destroy();
      this.view = null;
      this.layout = normaliseLayout(layoutJSON, []);
    }
    const { view, highlight } = this._frame(step);
    const state = normaliseState(this.layout, view);
    const boardEl = this.boardEl || el("div", { class: "board-wrap" });
    this.boardEl = boardEl;
    const cards = el("div", { class: "cards panel" });
    const banner = el("div", { class: "banner" });
    renderCards(cards, this.layout, state, null);
    renderBanner(banner, this.layout, state, null);
    const prev = el("button", { type: "button", "data-testid": "tutorial-prev", disabled: this.index === 0,
      onclick: () => this.go(-1), "aria-label": t("tutorial.prev") }, `← ${t("tutorial.prev")}`);
    const next = el("button", { type: "button", class: "primary", "data-testid": "tutorial-next",
      disabled: this.index === this.steps.length - 1, onclick: () => this.go(1), "aria-label": t("tutorial.next") },
    `${t("tutorial.next")} →`);
    const exit = el("button", { type: "button", "data-testid": "tutorial-exit", onclick: () => this.onExit() },
      t("tutorial.exit"));
    const text = el("article", { class: "tutorial-text panel", "data-testid": "tutorial-step", "data-step": step.index,
      "data-rules": (step.rules || []).join(" "),
      "aria-live": "polite" },
    el("div", { class: "step-no", text: t("tutorial.step", { n: step.index, total: this.steps.length }) }),
    el("h2", { "data-testid": "tutorial-title", text: t(`tutorial.${n}.title`) }),
    el("p", { "data-testid": "tutorial-body", text: t(`tutorial.${n}.text`) }),
    el("div", { class: "row" }, prev, next, exit, langSwitch()),
    el("p", { class: "muted keys-hint", text: t("tutorial.keys") }));
    this.root.replaceChildren(el("div", { class: "tutorial-screen", "data-testid": "tutorial" },
      boardEl, el("div", { class: "hud-top" }, cards, banner), text));
    if (!this.view) this.view = new DomainWheelView(boardEl, this.layout, { interactive: false });
    this.view.update(state);
    this._highlight(highlight);
    this._focus();
  }

  /** Frame the step's situation (its show.focus cells) in the part of the board no panel covers. */
  _focus() {
    const focus = this.steps[this.index].show?.focus;
    const cells = Array.isArray(focus) ? focus.map((c) => cellIndex(this.layout, c)).filter((i) => i >= 0) : [];
    if (!cells.length) {
      this.view.map.overview();
      return;
    }
    const board = this.view.map.root.getBoundingClientRect();
    const covers = [...this.root.querySelectorAll(".tutorial-text, .hud-top > *")].map((e) => e.getBoundingClientRect());
    frameCells(this.view.map, cells, board, covers);
  }

  _highlight(h) {
    if (!h) return;
    const src = cellIndex(this.layout, h.from);
    this.view.selected = src;
    this.view.map.root.dataset.selected = String(src);
    this.view.dests = new Map((h.destinations || []).map((d) => [cellIndex(this.layout, d.to), d]));
    this.view._drawPieces();
    this.view._drawDestinations();
    const el2 = this.view.map.root.querySelector(`.piece[data-cell="${src}"]`);
    el2?.classList.add("selected");
  }

  go(delta) {
    const i = this.index + delta;
    if (i < 0 || i >= this.steps.length) return;
    this.index = i;
    history.replaceState(null, "", `#tutorial=${this.steps[i].id}`);
    this._render();
  }

  _key(ev) {
    const onButton = Boolean(ev.target.closest?.("button, select, input, a"));
    if (ev.key === "ArrowRight" || ((ev.key === " " || ev.key === "Enter") && !onButton)) {
      ev.preventDefault();
      this.go(1);
    } else if (ev.key === "ArrowLeft") {
      ev.preventDefault();
      this.go(-1);
    } else if (ev.key === "Escape") {
      ev.preventDefault();
      this.onExit();
    }
  }
}

/** The widest a cell is drawn when the tutorial frames a situation (CSS px). */
const MAX_CELL_PX = 44;

/** The largest rectangle of `board` that none of `covers` overlaps: below the top panels or right of them,
 * above the text. */
export function freeArea(board, covers) {
  const bottom = Math.min(board.bottom, ...covers.filter((c) => c.top > board.top + board.height / 2).map((c) => c.top));
  const tops = covers.filter((c) => c.top <= board.top + board.height / 2 && c.bottom < bottom);
  const below = { left: board.left, right: board.right, top: Math.max(board.top, ...tops.map((c) => c.bottom)), bottom };
  const beside = { left: Math.max(board.left, ...tops.map((c) => c.right)), right: board.right, top: board.top, bottom };
  const area = (r) => Math.max(0, r.right - r.left) * Math.max(0, r.bottom - r.top);
  return area(beside) > area(below) ? beside : below;
}

/** Set the map's camera so the cells fit, with a margin, in the free area of the board (never closer than cells
 * MAX_CELL_PX wide, so the situation keeps its surroundings on a big screen). */
export function frameCells(map, cells, board, covers) {
  const free = freeArea(board, covers);
  const xy = cells.map((i) => map.grid.xy[i]);
  const margin = 2.5;
  const minX = Math.min(...xy.map((p) => p[0])) - margin;
  const maxX = Math.max(...xy.map((p) => p[0])) + margin;
  const minY = Math.min(...xy.map((p) => p[1])) - margin;
  const maxY = Math.max(...xy.map((p) => p[1])) + margin;
  const fw = Math.max(40, free.right - free.left);
  const fh = Math.max(40, free.bottom - free.top);
  const k = Math.max(Math.sqrt(3) / MAX_CELL_PX, (maxX - minX) / fw, (maxY - minY) / fh); // map units per pixel
  const cx = (minX + maxX) / 2;
  const cy = (minY + maxY) / 2;
  const w = board.width * k;
  const h = board.height * k;
  const x = cx - ((free.left + free.right) / 2 - board.left) * k;
  const y = cy - ((free.top + free.bottom) / 2 - board.top) * k;
  map.view = { x, y, w, h };
  map._apply();
}
