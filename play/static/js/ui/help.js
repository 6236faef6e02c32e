// The help panel (rule 11.9: the ? button or the H key): controls and the destination colours.

import { t } from "../i18n.js";
import { el } from "./hud.js";

const KEYS = [
  ["help.click", ["Click"]],
  ["help.esc", ["Esc"]],
  ["help.pass", ["P"]],
  ["help.pan", ["W", "A", "S", "D"]],
  ["help.cursor", ["← ↑ → ↓", "Enter"]],
  ["help.turn", ["Q", "E"]],
  ["help.zoom", ["+", "−", "help.key_wheel"]],
  ["help.overview", ["R"]],
  ["help.king", ["F"]],
  ["help.help", ["?", "H"]],
  ["help.touch", ["help.key_touch"]],
];

export function helpPanel(onClose) {
  const body = el("div", { class: "box" },
    el("h2", { "data-i18n": "help.title" }, t("help.title")),
    el("dl", { class: "keys" }, ...KEYS.flatMap(([key, keys]) => [
      el("dt", {}, ...keys.map((k) => (k.startsWith("help.")
        ? el("kbd", { "data-i18n": k }, t(k))
        : el("kbd", { text: k })))),
      el("dd", { "data-i18n": key }, t(key)),
    ])),
    el("h3", { "data-i18n": "help.colours" }, t("help.colours")),
    el("ul", { class: "legend" },
      el("li", {}, el("span", { class: "legend-mark green", "aria-hidden": "true" }),
        el("span", { "data-i18n": "help.green" }, t("help.green"))),
      el("li", {}, el("span", { class: "legend-mark orange", "aria-hidden": "true" }),
        el("span", { "data-i18n": "help.orange" }, t("help.orange"))),
      el("li", {}, el("span", { class: "legend-mark violet", "aria-hidden": "true" }),
        el("span", { "data-i18n": "help.violet" }, t("help.violet")))),
    el("p", { "data-i18n": "help.shapes" }, t("help.shapes")),
    el("button", { type: "button", class: "primary", "data-testid": "help-close", onclick: onClose,
      "data-i18n": "help.close" }, t("help.close")));
  return el("div", { class: "overlay help", "data-testid": "help", role: "dialog", "aria-modal": "true",
    "aria-label": t("help.title") }, body);
}
