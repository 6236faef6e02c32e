// UI text in Spanish (default, like the original) and English; the choice is remembered in localStorage.
// Strings live in ../i18n/{es,en}.json as flat "section.key" maps; "{name}" placeholders are filled by t().
// Elements with data-i18n="key" get their text, data-i18n-title / data-i18n-aria their title / aria-label.

const STORAGE_KEY = "dw.lang";
export const LANGS = ["es", "en"];
const tables = {};
let lang = "es";
const listeners = new Set();

function stored() {
  try {
    const v = localStorage.getItem(STORAGE_KEY);
    return LANGS.includes(v) ? v : null;
  } catch {
    return null;
  }
}

async function load(code) {
  if (!tables[code]) {
    const res = await fetch(new URL(`../i18n/${code}.json`, import.meta.url));
    if (!res.ok) throw new Error(`cannot load translations ${code}: HTTP ${res.status}`);
    tables[code] = await res.json();
  }
  return tables[code];
}

/** Load the remembered language (Spanish by default) and the English fallback. */
export async function initI18n() {
  lang = stored() || "es";
  await Promise.all([load("es"), load("en")]);
  document.documentElement.lang = lang;
}

export function getLang() {
  return lang;
}

/** Switch language, remember it and re-translate the page. */
export async function setLang(code) {
  if (!LANGS.includes(code)) return;
  await load(code);
  lang = code;
  try {
    localStorage.setItem(STORAGE_KEY, code);
  } catch {
    /* private mode: not remembered */
  }
  document.documentElement.lang = code;
  translate(document);
  for (const fn of listeners) fn(code);
}

export function onLangChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** The text of a key in the current language (English, then the key itself, as fallbacks). */
export function t(key, params = {}) {
  let s = tables[lang]?.[key] ?? tables.en?.[key] ?? key;
  for (const [k, v] of Object.entries(params)) s = s.replaceAll(`{${k}}`, String(v));
  return s;
}

/** Whether the current language (or English) has a text for key. */
export function has(key) {
  return key in (tables[lang] || {}) || key in (tables.en || {});
}

/** The text of a count: key.one / key.other (Intl plural rules of the language), with {n} filled. */
export function tn(key, n, params = {}) {
  let rule = "other";
  try {
    rule = new Intl.PluralRules(lang).select(Number(n));
  } catch {
    /* an engine without Intl: "other" */
  }
  return t(has(`${key}.${rule}`) ? `${key}.${rule}` : `${key}.other`, { ...params, n });
}

/** The name of an AI in the page's language: our scripted AIs by id (ai.name.ID), others by the name they bring. */
export function aiName(id, fallback = null) {
  const level = /^level:[a-z0-9_-]+:(\d+)$/.exec(String(id));
  if (level) return t("ladder.level", { n: level[1] });
  const learned = learnedNames.get(id);
  if (learned) return learned[lang] || learned.en || fallback || id;
  return has(`ai.name.${id}`) ? t(`ai.name.${id}`) : fallback || id;
}

/** Names in both languages the server gave for its strategies (the menu's levels and advanced list), by id. */
const learnedNames = new Map();

/** Remember the names of a list of {id, names: {es, en}} (the menu's levels and advanced entries). */
export function learnNames(list) {
  for (const s of list) if (s && s.id && s.names) learnedNames.set(s.id, s.names);
}

/** The name a seat shows (colourKey, e.g. "player.blue", may be null): the name a player typed, or, for a name the
 * server gave by default (its AI's or its colour's name in any language), that same name in the page's language. */
export function seatName(player, colourKey = null) {
  const name = player?.name;
  if (!name) return colourKey ? t(colourKey) : "?";
  const isAi = Boolean(player.ai) || player.type === "ai";
  if (isAi && player.ai && name === player.aiName) return aiName(player.ai, player.aiName);
  const named = (key) => LANGS.some((c) => tables[c]?.[key] === name);
  const aiKey = isAi ? Object.keys(tables.en || {}).find((k) => k.startsWith("ai.name.") && named(k)) : null;
  if (aiKey) return t(aiKey);
  if (colourKey && named(colourKey)) return t(colourKey);
  return name;
}

/** A server or network error in the page's language: its stable `code` (docs/PLAY.md "Languages") picks the text;
 * the server's own message is English for developers, so it goes to the console, never to the page. */
export function errorText(err) {
  const code = err?.code || (err?.status ? "http" : "network");
  if (err?.message) console.debug(`[server error ${code}] ${err.message}`);
  return t(has(`error.${code}`) ? `error.${code}` : "error.unknown", { status: err?.status ?? "" });
}

/** Fill data-i18n* attributes under root. */
export function translate(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-title]")) el.title = t(el.dataset.i18nTitle);
  for (const el of root.querySelectorAll("[data-i18n-aria]")) el.setAttribute("aria-label", t(el.dataset.i18nAria));
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) el.placeholder = t(el.dataset.i18nPlaceholder);
}

/** A button that toggles ES/EN. */
export function langSwitch() {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "lang-switch";
  b.dataset.testid = "lang-switch";
  const label = () => {
    b.textContent = lang === "es" ? "English" : "Español";
    b.setAttribute("aria-label", lang === "es" ? "Switch to English" : "Cambiar a español");
  };
  label();
  b.addEventListener("click", () => setLang(lang === "es" ? "en" : "es"));
  onLangChange(label);
  return b;
}
