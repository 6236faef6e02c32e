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
