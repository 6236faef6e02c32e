// Pieces every game's screens share: the menu page's frame (title, tagline, language, actions), the AI speed select,
// and the replay viewer's step controls, keys and cached record views.

import { t, langSwitch } from "../i18n.js";
import * as api from "../api.js";
import { el } from "./hud.js";

export const SPEEDS = ["normal", "fast", "instant"];

/** A menu page: the title, tagline and language switch, a row of actions (the first is Play), then the sections. */
export function menuPage(testid, title, tagline, actions, ...sections) {
  return el("main", { class: "menu-screen scroll", "data-testid": testid },
    el("header", { class: "menu-head" }, el("h1", { text: title }), el("p", { class: "tagline", text: tagline }), langSwitch()),
    el("div", { class: "menu-actions row" }, ...actions),
    ...sections);
}

/** A big menu button (`primary` for the main action). */
export function bigButton(testid, label, onclick, primary = false) {
  return el("button", { type: "button", class: primary ? "primary big" : "big", "data-testid": testid, onclick }, label);
}

/** The AI speed select (normal / fast / instant) showing `value`. */
export function speedSelect(attrs, value) {
  const select = el("select", { "aria-label": t("game.ai_speed"), ...attrs },
    ...SPEEDS.map((sp) => el("option", { value: sp, text: t(`speed.${sp}`) })));
  select.value = value || "normal";
  return select;
}

/** Give `screen` (its goto, ply and plies) the replay viewer's slider and ply counter; return its step buttons. */
export function replayControls(screen) {
  const b = (testid, label, fn) => el("button", { type: "button", "data-testid": testid, "aria-label": t(label),
    title: t(label), onclick: fn }, t(`${label}_short`));
  screen.slider = el("input", { type: "range", min: 0, max: screen.plies, value: 0, "data-testid": "replay-slider",
    "aria-label": t("replay.position"), oninput: (ev) => screen.goto(Number(ev.target.value)) });
  screen.plyEl = el("span", { "data-testid": "replay-ply", class: "ply-counter" });
  return [
    b("replay-first", "replay.first", () => screen.goto(0)),
    b("replay-prev", "replay.prev", () => screen.goto(screen.ply - 1)),
    b("replay-next", "replay.next", () => screen.goto(screen.ply + 1)),
    b("replay-last", "replay.last", () => screen.goto(screen.plies)),
  ];
}

/** Handle the replay keys (← / →, Home / End, Escape) for `screen`; return false for any other key. */
export function replayKey(screen, ev) {
  if (ev.target.closest?.("input, select")) return true; // typing in a control steps nothing
  const steps = { ArrowRight: 1, ArrowLeft: -1 };
  if (steps[ev.key]) {
    ev.preventDefault();
    screen.goto(screen.ply + steps[ev.key]);
  } else if (ev.key === "Home") screen.goto(0);
  else if (ev.key === "End") screen.goto(screen.plies);
  else if (ev.key === "Escape") screen.onExit();
  else return false;
  return true;
}

/** The state views of one saved record, fetched once each; a request overtaken by a later one answers null. */
export class RecordViews {
  constructor(id, plies) {
    this.id = id;
    this.plies = plies;
    this.cache = new Map();
    this.token = 0;
  }

  /** Return [ply, view] for `ply` clamped to the record, or null when a later request came meanwhile. */
  async at(ply) {
    ply = Math.max(0, Math.min(this.plies, ply));
    const token = ++this.token;
    let v = this.cache.get(ply);
    if (!v) {
      v = await api.recordView(this.id, ply);
      this.cache.set(ply, v);
    }
    return token === this.token ? [ply, v] : null;
  }
}
