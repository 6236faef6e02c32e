// The game menu (rule 10): every seat human or any strategy (the difficulty levels first, with their ratings, then
// the six scripted AIs, and on request the advanced list of networks, packages and search seats), player names, map size and every rule option; online rooms with one
// invite link per human seat and a spectator link; the tutorial and the replays.

import { t, getLang, errorText, aiName } from "../i18n.js";
import * as api from "../api.js";
import { el } from "./hud.js";
import { bigButton, menuPage } from "./screen_parts.js";
import { clockSelect } from "./presence.js";
import { myGamesSection } from "./my_games.js";
import { advancedToggle, isAdvanced, levelCard, strategyOptions } from "./levels.js";

const SEAT_KEYS = ["blue", "green", "red"];
const DEFAULT_SEATS = ["human", "balanced", "balanced"];
const SPEEDS = ["normal", "fast", "instant"];
const STORAGE = "dw.menu";

function remembered() {
  try {
    return JSON.parse(localStorage.getItem(STORAGE) || "null");
  } catch {
    return null;
  }
}

function remember(value) {
  try {
    localStorage.setItem(STORAGE, JSON.stringify(value));
  } catch {
    /* not remembered */
  }
}

/** Win rates from a strategy card: a package's measured `strength.results`, or a model card's arena table. */
function winRates(card) {
  if (Array.isArray(card.strength?.results)) {
    return card.strength.results.map((r) => ({ opp: String(r.opponents).replace(/ \(x\d+\)$/, ""), rate: 100 * r.win_rate }));
  }
  // the first arena table of the model card (later tables describe other runs)
  const block = String(card.markdown || "").split(/\n\s*\n/).find((b) => /\(x\d+\)\s*\|/.test(b)) || "";
  const rows = [];
  for (const m of block.matchAll(/^\|\s*([a-z_]+) \(x\d+\)\s*\|\s*\d+\s*\|\s*\**([\d.]+)%/gm)) {
    rows.push({ opp: m[1], rate: Number(m[2]) });
  }
  return rows;
}

function trainedOn(card) {
  const g = card.game;
  if (typeof g === "string") return g;
  const o = g?.trained_options;
  if (!o) return "";
  return Object.entries(o).map(([k, v]) => `${t(`option.${k}`)}: ${v === true ? "✓" : v === false ? "✗" : v}`).join(", ");
}

/** A strategy's name in the page's language: a package's own display name, our scripted AIs' names, else the server's. */
export function strategyName(s) {
  return s.card?.display_names?.[getLang()] || aiName(s.id, s.display_name);
}

/** One strategy's card as lines: what it is, what it was trained on, how strong it is. */
function cardLines(s, names) {
  if (s.kind === "scripted") return [t(`ai.${s.id}`) === `ai.${s.id}` ? "" : t(`ai.${s.id}`)].filter(Boolean);
  const card = s.card || {};
  const lines = [];
  const summary = String(card.summary || card.description || "");
  if (summary) lines.push(summary.length > 170 ? `${summary.slice(0, 167).trimEnd()}…` : summary);
  const trained = trainedOn(card);
  if (trained) lines.push(`${t("card.game")}: ${trained}`);
  const rates = winRates(card);
  if (rates.length) {
    const list = rates.map((r) => t("card.vs", { rate: r.rate.toFixed(0), name: names[r.opp] || r.opp }));
    lines.push(`${t("card.strength")}: ${list.join(", ")}`);
  }
  return lines;
}

export class MenuScreen {
  /** @param {{onPlay: Function, onTutorial: Function, onReplays: Function}} hooks */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.menu = null;
    this.strategies = [];
  }

  destroy() {
    this.mine?.stop();
  }

  async show() {
    this.root.replaceChildren(el("p", { class: "loading", text: t("menu.loading") }));
    try {
      [this.menu, this.strategies] = await Promise.all([api.gameMenu(), api.strategies()]);
    } catch (err) {
      this.root.replaceChildren(el("p", { class: "error-box", text: `${t("menu.error")}: ${errorText(err)}` }));
      return;
    }
    this._render();
  }

  _strategyOptions() {
    return strategyOptions(this.menu, this.strategies, strategyName, this.showAdvanced);
  }

  _render() {
    const saved = remembered() || {};
    this.showAdvanced = Boolean(saved.advanced) || (saved.kinds || []).some((k) => isAdvanced(this.menu, k));
    const seats = this.menu.seats.map((seat, p) => {
      const nameIn = el("input", { type: "text", maxlength: 24, "data-testid": `seat-name-${p}`,
        "aria-label": t("menu.name_of", { seat: t(`player.${SEAT_KEYS[p]}`) }),
        value: saved.names?.[p] || t(`player.${SEAT_KEYS[p]}`) });
      const kindSel = el("select", { "data-testid": `seat-kind-${p}`,
        "aria-label": t("menu.kind_of", { seat: t(`player.${SEAT_KEYS[p]}`) }) }, ...this._strategyOptions());
      const want = saved.kinds?.[p] || DEFAULT_SEATS[p];
      kindSel.value = [...kindSel.options].some((o) => o.value === want) ? want : DEFAULT_SEATS[p];
      if (!kindSel.value) kindSel.selectedIndex = 0;
      const card = el("div", { class: "strategy-card", "data-testid": `seat-card-${p}` });
      const showCard = () => {
        const s = this.strategies.find((x) => x.id === kindSel.value);
        const names = Object.fromEntries(this.strategies.map((x) => [x.id, strategyName(x)]));
        const lines = levelCard(this.menu, kindSel.value) || (s ? cardLines(s, names) : []);
        card.replaceChildren(...lines.map((line) => el("div", { text: line })));
      };
      kindSel.addEventListener("change", showCard);
      showCard();
      return { nameIn, kindSel, showCard, row: el("div", { class: `seat-row p${p}` },
        el("span", { class: `swatch p${p}`, "aria-hidden": "true" }),
        el("strong", { text: t(`player.${SEAT_KEYS[p]}`) }), nameIn, kindSel, card) };
    });
    const optionInputs = {};
    const optionRows = this.menu.options.map((o) => {
      const v = saved.options?.[o.name] ?? o.default;
      let input;
      if (o.type === "bool") {
        input = el("input", { type: "checkbox", "data-testid": `opt-${o.name}` });
        input.checked = Boolean(v);
      } else {
        input = el("input", { type: "number", min: o.min, max: o.max, step: 1, value: v, "data-testid": `opt-${o.name}` });
      }
      optionInputs[o.name] = [o, input];
      const range = o.type === "int" ? ` (${o.min}–${o.max})` : "";
      return el("label", { class: `opt ${o.type}` }, el("span", { text: t(`option.${o.name}`) + range }), input);
    });
    const speedSel = el("select", { "data-testid": "menu-ai-speed", "aria-label": t("game.ai_speed") },
      ...SPEEDS.map((sp) => el("option", { value: sp, text: t(`speed.${sp}`) })));
    speedSel.value = saved.speed || "normal";
    optionRows.push(el("label", { class: "opt" }, el("span", { text: t("game.ai_speed") }), speedSel));
    const clock = clockSelect(saved.clock);
    optionRows.push(clock.label);
    const errorEl = el("p", { class: "error-box", hidden: true, "data-testid": "menu-error", role: "alert" });
    const collect = () => {
      const options = {};
      for (const [name, [o, input]] of Object.entries(optionInputs)) {
        options[name] = o.type === "bool" ? input.checked : Number(input.value);
      }
      const players = seats.map(({ nameIn, kindSel }, p) => ({
        name: nameIn.value.trim() || t(`player.${SEAT_KEYS[p]}`),
        strategy: kindSel.value === "human" ? null : kindSel.value,
      }));
      remember({ names: players.map((x) => x.name), kinds: seats.map((s) => s.kindSel.value), options,
        speed: speedSel.value, clock: clock.select.value, advanced: this.showAdvanced });
      return { options, players, ai_speed: speedSel.value, clock: clock.value() };
    };
    const start = async () => {
      errorEl.hidden = true;
      try {
        await this.hooks.onPlay(collect());
      } catch (err) {
        errorEl.hidden = false;
        errorEl.textContent = errorText(err);
      }
    };
    const presets = el("div", { class: "row presets" },
      el("span", { text: t("menu.presets") }),
      ...[[1, 2, "menu.preset_small"], [2, 3, "menu.preset_medium"], [2, 4, "menu.preset_standard"]].map(([n, R, key]) =>
        el("button", { type: "button", "data-testid": `preset-${n}-${R}`, onclick: () => {
          optionInputs.land_radius[1].value = n;
          optionInputs.map_radius[1].value = R;
        } }, t(key))));
    const advanced = advancedToggle(this.showAdvanced, (on) => {
      this.showAdvanced = on;
      for (const { kindSel, showCard } of seats) {
        const was = kindSel.value;
        kindSel.replaceChildren(...this._strategyOptions());
        kindSel.value = [...kindSel.options].some((o) => o.value === was) ? was : "human";
        showCard();
      }
    });
    this.mine?.stop();
    this.mine = myGamesSection();
    this.root.replaceChildren(menuPage("menu", "Domain Wheel", t("menu.tagline"), [
      bigButton("play", t("menu.play"), start, true),
      bigButton("tutorial", t("menu.tutorial"), () => this.hooks.onTutorial()),
      bigButton("replays", t("menu.replays"), () => this.hooks.onReplays()),
      this.hooks.onAlveole ? bigButton("menu-alveole", t("menu.alveole"), () => this.hooks.onAlveole()) : null,
      this.hooks.onConquer ? bigButton("menu-conquer", t("menu.conquer"), () => this.hooks.onConquer()) : null,
      this.hooks.onFrontera ? bigButton("menu-frontera", t("menu.frontera"), () => this.hooks.onFrontera()) : null],
      errorEl,
      this.mine.section,
      el("section", { class: "panel" }, el("h2", { text: t("menu.players") }), ...seats.map((s) => s.row),
        advanced.label, el("p", { class: "muted", text: t("menu.online_hint") })),
      el("section", { class: "panel" }, el("h2", { text: t("menu.options") }), presets,
        el("div", { class: "options-grid" }, ...optionRows))));
  }
}

/** The invite panel of a room: one copyable link per human seat and the spectator link. */
export function invitePanel(room) {
  const row = (label, url, testid) => {
    const input = el("input", { type: "text", readonly: true, value: url, "data-testid": testid, "aria-label": label });
    const copy = el("button", { type: "button", onclick: async () => {
      input.select();
      try {
        await navigator.clipboard.writeText(url);
      } catch {
        document.execCommand?.("copy");
      }
      copy.textContent = t("invite.copied");
    } }, t("invite.copy"));
    return el("div", { class: "invite-row" }, el("span", { text: label }), input, copy);
  };
  const links = room.invites || [];
  return el("div", { class: "invites", "data-testid": "invites" },
    el("h3", { text: t("invite.title") }),
    ...links.map((inv) => row(t("invite.seat", { name: inv.name || t(`player.${SEAT_KEYS[inv.seat]}`) }),
      inv.url, `invite-${inv.seat}`)),
    room.spectator_url ? row(t("invite.spectator"), room.spectator_url, "invite-spectator") : null);
}
