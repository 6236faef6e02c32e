// The tutorial ("Cómo jugar", rule 11.11): the 20 situations of tests/scenarios/ in order, drawn by the real board
// view, each with a short explanation in our own words (i18n keys tutorial.NN.title / tutorial.NN.text).
// → / Space / Enter: forward; ←: back; Esc: out.

import { t, onLangChange, langSwitch } from "../i18n.js";
import * as api from "../api.js";
import { DomainWheelView, cellIndex, normaliseLayout, normaliseState } from "../board/domain_wheel.js";
import { el, renderBanner, renderCards } from "./hud.js";

/** Which moment of each scenario the step shows: the position before its actions or the outcome after them. */
const FRAME = {
  1: "before", 2: "before", 3: "before", 4: "before", 5: "before", 6: "after", 7: "after", 8: "before", 9: "before",
  10: "before", 11: "after", 12: "after", 13: "before", 14: "after", 15: "after", 16: "after", 17: "after",
  18: "after", 19: "checkpoint", 20: "after",
};

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
      this.root.replaceChildren(el("p", { class: "error-box", text: `${t("menu.error")}: ${err.message}` }),
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

  _frame(step) {
    const which = FRAME[step.index] || "before";
    let view = step.view;
    let highlight = step.highlight || null;
    if (which === "after") view = step.after;
    if (which === "checkpoint") {
      const cp = step.actions.find((a) => a.checkpoint && a.view);
      if (cp) {
        view = cp.view;
        highlight = cp.highlight || highlight;
      }
    }
    if (!highlight && which === "before") {
      const first = step.actions.find((a) => a.action === "move" && a.destinations?.length);
      if (first) highlight = { from: first.from, destinations: first.destinations, to: first.to };
    }
    if (!highlight && which === "before" && step.expect?.destinations) {
      // at least point at the piece the situation is about (its destinations need the server's `highlight`)
      const check = [step.expect.destinations].flat()[0];
      if (check?.from) highlight = { from: check.from, destinations: [] };
    }
    return { view, highlight };
  }

  async _render() {
    const token = (this._tok = (this._tok || 0) + 1);
    let step = this.steps[this.index];
    if (FRAME[step.index] === "checkpoint" && !step.full) {
      // the list carries no per-action views; one situation in full does
      try {
        step = { ...(await api.tutorialStep(step.id)), full: true };
        this.steps[this.index] = step;
      } catch {
        /* show the step's own position instead */
      }
      if (token !== this._tok) return;
    }
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
      "aria-live": "polite" },
    el("div", { class: "step-no", text: t("tutorial.step", { n: step.index, total: this.steps.length }) }),
    el("h2", { "data-testid": "tutorial-title", text: t(`tutorial.${n}.title`) }),
    el("p", { "data-testid": "tutorial-body", text: t(`tutorial.${n}.text`) }),
    step.rules?.length ? el("p", { class: "muted rules", text: t("tutorial.rules", { list: step.rules.join(", ") }) }) : null,
    el("div", { class: "row" }, prev, next, exit, langSwitch()),
    el("p", { class: "muted keys-hint", text: t("tutorial.keys") }));
    this.root.replaceChildren(el("div", { class: "tutorial-screen", "data-testid": "tutorial" },
      boardEl, el("div", { class: "hud-top" }, cards, banner), text));
    if (!this.view) this.view = new DomainWheelView(boardEl, this.layout, { interactive: false });
    this.view.update(state);
    this._highlight(highlight);
    this._focus(state, highlight);
  }

  /** Zoom to what the step is about: the chosen piece, a land being taken, the last move, or the whole map. */
  _focus(state, highlight) {
    let cell = highlight ? cellIndex(this.layout, highlight.from) : -1;
    if (cell < 0 && state.holds.length) cell = this.layout.lands[state.holds[0].land].throne;
    if (cell < 0 && state.last?.to) cell = cellIndex(this.layout, state.last.to);
    if (cell < 0 || this.steps[this.index].index <= 2) this.view.map.overview();
    else this.view.map.focusCell(cell, 30);
    // the explanation covers the bottom of the screen: keep the focus above it
    if (cell >= 0 && this.steps[this.index].index > 2) this.view.map.pan(0, 0.15);
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
