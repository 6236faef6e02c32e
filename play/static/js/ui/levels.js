// The seat menus' strategy lists (issue 46 item 3): the game's difficulty levels first ("Nivel 1".."Nivel k", each
// with its calibrated rating and a one-line description in the page's language), then the scripted AIs, then the
// advanced list (networks, packages, search seats under clean names), shown only when the player asks for it.

import { t, getLang, aiName, learnNames } from "../i18n.js";
import { el } from "./hud.js";

/** A level's rating as a player reads it: "1520 (1480–1560)", or "" before the ladder is calibrated. */
export function ratingText(level) {
  const r = level.rating;
  return r ? t("ladder.rating", { rating: r.rating, low: r.low, high: r.high }) : "";
}

/** The option label of a level: "Nivel 2 · 1520". */
function levelLabel(level) {
  const name = level.names[getLang()] || level.names.en;
  return level.rating ? `${name} · ${level.rating.rating}` : name;
}

/**
 * The <option>/<optgroup> elements of a seat select for one game: human, the levels (one group per ladder), the
 * scripted AIs under their names, and (when `advanced`) the advanced list.
 * @param {{levels: object[], advanced: object[]}} game the game's entry of GET /api/menu
 * @param {object[]} strategies the game's strategies (GET /api/menu's strategies_by_game)
 * @param {(s: object) => string} scriptedName a scripted AI's name in the page's language
 */
export function strategyOptions(game, strategies, scriptedName, advanced = false) {
  learnNames([...(game.levels || []), ...(game.advanced || [])]);
  const out = [el("option", { value: "human", text: t("menu.human") })];
  const ladders = new Map();
  for (const level of game.levels || []) {
    if (!ladders.has(level.ladder)) ladders.set(level.ladder, []);
    ladders.get(level.ladder).push(level);
  }
  const several = ladders.size > 1;
  for (const list of ladders.values()) {
    const where = list[0].ladder_label[getLang()] || list[0].ladder_label.en;
    out.push(el("optgroup", { label: several ? t("ladder.group_of", { label: where }) : t("ladder.group") },
      ...list.map((lv) => el("option", { value: lv.id, text: levelLabel(lv) }))));
  }
  const scripted = strategies.filter((s) => s.kind === "scripted");
  if (scripted.length) {
    out.push(el("optgroup", { label: t("menu.group.scripted") },
      ...scripted.map((s) => el("option", { value: s.id, text: scriptedName(s) }))));
  }
  if (advanced && (game.advanced || []).length) {
    out.push(el("optgroup", { label: t("ladder.advanced") },
      ...game.advanced.map((a) => el("option", { value: a.id, text: aiName(a.id, a.names.en) }))));
  }
  return out;
}

/** Whether a strategy id belongs to the advanced list (a remembered choice re-opens it). */
export function isAdvanced(game, id) {
  return (game.advanced || []).some((a) => a.id === id);
}

/** The card lines of a level (its description and rating), or null for any other strategy. */
export function levelCard(game, id) {
  const level = (game.levels || []).find((lv) => lv.id === id);
  if (!level) return null;
  const rating = ratingText(level);
  return [level.description[getLang()] || level.description.en,
    rating ? `${t("ladder.rating_label")}: ${rating}` : t("ladder.not_rated")];
}

/** The card lines of an advanced entry (its kind; its English summary on an English page), or null. */
export function advancedCard(game, id) {
  const agent = (game.advanced || []).find((a) => a.id === id);
  if (!agent) return null;
  // summaries are English (model cards, manifests): a Spanish page shows the kind alone
  return [t(`menu.group.${agent.kind}`), getLang() === "en" && agent.summary ? agent.summary : null].filter(Boolean);
}

/** A checkbox that shows the advanced list in every seat select; `onChange(checked)` rebuilds them. */
export function advancedToggle(checked, onChange, testid = "show-advanced") {
  const box = el("input", { type: "checkbox", "data-testid": testid });
  box.checked = checked;
  box.addEventListener("change", () => onChange(box.checked));
  return { box, label: el("label", { class: "opt bool" }, box, el("span", { text: t("ladder.show_advanced") })) };
}
