// The game screen's panels: player cards (rule 11.3), turn banner (11.4), move log (11.5), land details (11.6) and
// the game's end with its reason and winners.

import { t, tn, aiName, seatName } from "../i18n.js";
import { PLAYER_KEYS, cellIndex } from "../board/domain_wheel.js";
import { axialToXY } from "../board/hexmap.js";

export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(e.dataset, v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
  return e;
}

export function playerName(layout, p) {
  return seatName(layout.players[p], `player.${PLAYER_KEYS[p]}`);
}

function seatKind(layout, p) {
  const pl = layout.players[p] || {};
  if (!pl.ai) return t("hud.human");
  return aiName(pl.ai, pl.aiName);
}

/** Player cards: points against the end-request threshold, lands, knights, progress bar, "king locked". */
export function renderCards(root, layout, state, mySeat) {
  const E = layout.options.end_request_points;
  root.replaceChildren(
    ...[0, 1, 2].map((p) => {
      const score = state.scores[p];
      const pct = Math.min(100, Math.round((100 * score) / E));
      const info = state.players?.[p] || {};
      const locked = info.king_locked ?? (state.countdown && state.countdown.holder === p);
      const lands = info.lands ?? state.owners.filter((o) => o === p).length;
      const knights = info.knights ?? state.pieces.filter((pc) => pc.player === p && pc.kind === "knight").length;
      return el(
        "section",
        {
          class: `card p${p}${state.turn === p && !state.over ? " active" : ""}${mySeat === p ? " mine" : ""}`,
          "data-testid": "player-card",
          "data-player": p,
          "aria-label": playerName(layout, p),
        },
        el("header", {},
          el("span", { class: `swatch p${p}`, "aria-hidden": "true" }),
          el("strong", { class: "name", text: playerName(layout, p) }),
          mySeat === p ? el("span", { class: "you", text: t("hud.you") }) : null,
          el("span", { class: "kind", text: seatKind(layout, p) })),
        el("div", { class: "stats" },
          el("span", { "data-testid": "card-points", text: t("hud.points", { score, E }) }),
          el("span", { text: tn("hud.lands", lands) }),
          el("span", { text: tn("hud.knights", knights) })),
        el("div", { class: "bar", role: "progressbar", "aria-valuemin": 0, "aria-valuemax": E, "aria-valuenow": score,
          "aria-label": t("hud.progress") },
        el("div", { class: "fill", style: `width:${pct}%` })),
        locked ? el("div", { class: "locked", "data-testid": "king-locked", text: t("hud.king_locked") }) : null,
      );
    }),
  );
}

/** The end reason and winners as one sentence. */
export function resultText(layout, state) {
  const names = (list) => list.map((p) => playerName(layout, p)).join(", ");
  if (state.truncated) return t("end.truncated", { names: names(state.leaders || state.winners || []) });
  const reason = t(`end.reason.${state.endReason}`);
  const w = state.winners || [];
  return t(w.length > 1 ? "end.winners_many" : "end.winner_one", { reason, names: names(w) });
}

/** The turn banner: whose turn, which AI, the round and the centre countdown. */
export function renderBanner(root, layout, state, mySeat) {
  root.replaceChildren();
  root.className = `banner${state.over ? " over" : ` p${state.turn}`}`;
  if (state.over) {
    root.append(el("strong", { "data-testid": "game-over", text: t("end.title") }), " ", resultText(layout, state));
    return;
  }
  const p = state.turn;
  const who = mySeat === p ? t("banner.your_turn") : t("banner.turn_of", { name: playerName(layout, p) });
  const pl = layout.players[p] || {};
  root.append(...[
    el("span", { class: `swatch p${p}`, "aria-hidden": "true" }),
    el("strong", { "data-testid": "turn-who", text: who }),
    pl.ai ? el("span", { class: "ai", text: t("banner.ai", { name: aiName(pl.ai, pl.aiName) }) }) : null,
    el("span", { class: "round", text: t("banner.round", { n: state.round, max: layout.options.max_rounds }) }),
  ].filter(Boolean));
  if (state.countdown) {
    root.append(el("span", { class: "countdown", "data-testid": "countdown",
      text: t("banner.countdown", { name: playerName(layout, state.countdown.holder), n: state.countdown.turns_left }) }));
  }
}

/** One log entry (docs/PLAY.md: {ply, round, seat, action, from, to, kinds, events}) as text (rule 11.5). */
export function logText(layout, entry) {
  const who = entry.seat === undefined || entry.seat === null ? "" : playerName(layout, entry.seat);
  let s;
  if (entry.action === "pass") s = t("log.pass", { who });
  else if (entry.action === "end_request") s = t("log.end_request", { who });
  else if (entry.action === "move") {
    const kinds = (entry.kinds || []).map((k) => t(`kind.${k}`)).join("/") || t("log.a_move");
    const from = cellLand(layout, entry.from);
    const to = cellLand(layout, entry.to);
    s = from === to && from >= 0 ? t("log.move_in", { who, kinds, land: landName(layout, to) })
      : t("log.move", { who, kinds, from: landName(layout, from), to: landName(layout, to) });
  } else s = entry.notation || "";
  const ev = (entry.events || []).map((e) => eventText(layout, e)).filter(Boolean);
  return ev.length ? `${s} · ${ev.join(" · ")}` : s;
}

/** The land of a [q, r] cell (-1 when off the map). */
function cellLand(layout, qr) {
  const c = cellIndex(layout, qr);
  return c < 0 ? -1 : layout.cellLand[c];
}

/** A land as a player finds it on the board (docs/PLAY.md "Languages"): the centre, a player's start land, or the
 * points drawn on its throne with its ring (1 next to the centre) and the clock hour of its direction from the
 * centre as first drawn (12 at the top). */
export function landName(layout, land) {
  const L = layout.lands[land];
  if (!L) return "?";
  if (land === layout.centre) return t("land.centre");
  if (L.start !== null && L.start !== undefined) return t("land.start", { name: playerName(layout, L.start) });
  const [x, y] = axialToXY(...layout.cells[L.throne]);
  const [cx, cy] = axialToXY(...layout.cells[layout.lands[layout.centre].throne]);
  const angle = (Math.atan2(x - cx, cy - y) * 180) / Math.PI; // 0 at the top, clockwise (screen y grows down)
  const hour = (Math.round((angle + 360) / 30) % 12) || 12;
  return t("land.named", { points: L.points, ring: L.ring, hour });
}

function eventText(layout, e) {
  const params = {
    name: e.player !== undefined ? playerName(layout, e.player) : "",
    from: e.from_owner !== undefined && e.from_owner !== null ? playerName(layout, e.from_owner) : "",
    land: e.land !== undefined ? landName(layout, e.land) : e.cell || e.to ? landName(layout, cellLand(layout, e.cell || e.to)) : "",
    holder: e.holder !== undefined ? playerName(layout, e.holder) : "",
    n: e.turns_left ?? "",
  };
  if (e.type === "game_over") return t("event.game_over");
  const key = `event.${e.type}${e.type === "conquest" && params.from ? "_from" : ""}`;
  const s = t(key, params);
  return s === key ? "" : s;
}

export function renderLog(root, layout, entries) {
  const items = entries.slice(-60).map((e, i) =>
    el("li", { "data-testid": "log-entry", class: e.seat !== undefined ? `p${e.seat}` : "", "data-i": i },
      el("span", { class: "ply", text: e.ply !== undefined ? `${e.ply}.` : "" }), " ", logText(layout, e)));
  root.replaceChildren(...items.reverse());
}

/** What is still missing for one conquest / liberation entry of the server's land details, as texts. */
function missingTexts(info, what) {
  const out = [];
  if (info.blocked) out.push(t(`details.blocked.${info.blocked}`));
  if (info.missing > 0) out.push(tn("details.missing_knights", info.missing));
  if (what === "conquest" && !info.king_on_throne) out.push(t("details.missing_king"));
  return out;
}

/** Land details on hover (rule 11.6): owner, points, own and rival knights, what is missing to conquer/liberate. */
export function renderLandDetails(root, layout, state, land, viewer) {
  if (land < 0 || !state || land === undefined) {
    root.hidden = true;
    return;
  }
  root.hidden = false;
  root.dataset.land = String(land);
  const L = layout.lands[land];
  const d = state.lands[land];
  const owner = state.owners[land];
  const ownerTxt = L.start !== null
    ? t("details.start_of", { name: playerName(layout, L.start) })
    : owner >= 0 ? playerName(layout, owner) : t("details.no_owner");
  const own = d.knights[viewer] ?? 0;
  const rival = d.knights.reduce((a, n, p) => a + (p === viewer ? 0 : n), 0);
  const rows = [
    el("h3", { "data-testid": "details-title", text: capitalise(t("details.title", { land: landName(layout, land) })) }),
    el("dl", {},
      el("dt", { text: t("details.owner") }), el("dd", { "data-testid": "details-owner", text: ownerTxt }),
      el("dt", { text: t("details.points") }), el("dd", { "data-testid": "details-points", text: String(L.points) }),
      el("dt", { text: t("details.own_knights", { name: playerName(layout, viewer) }) }),
      el("dd", { "data-testid": "details-own", text: String(own) }),
      el("dt", { text: t("details.rival_knights") }), el("dd", { "data-testid": "details-rival", text: String(rival) })),
  ];
  for (const h of state.holds.filter((x) => x.land === land)) {
    rows.push(el("p", { class: `hold p${h.player}` }, el("span", { class: `swatch p${h.player}`, "aria-hidden": "true" }),
      t(h.kind === "conquest" ? "details.conquering" : "details.liberating",
        { name: playerName(layout, h.player), n: h.turns, total: h.total })));
  }
  if (L.start !== null) rows.push(el("p", { class: "muted", text: t("details.closed") }));
  for (const what of ["conquest", "liberation"]) {
    const info = d[what]?.[viewer];
    if (!info) continue;
    const miss = missingTexts(info, what);
    rows.push(el("p", { "data-testid": `details-${what}` },
      el("strong", { text: t(`details.to_${what}`, { need: info.need, have: info.have }) }), " ",
      miss.length ? t("details.missing", { list: miss.join("; ") }) : t("details.ready")));
  }
  root.replaceChildren(...rows);
}

function capitalise(text) {
  return text ? text[0].toLocaleUpperCase() + text.slice(1) : text;
}

/**
 * A screen reader's voice for the game (WCAG 4.1.3): one visually hidden polite live region that says what changed
 * since the last view, the new moves and whose turn it is, instead of live regions over panels that are redrawn
 * whole on every view (which would read the whole log again).
 */
export class Announcer {
  constructor() {
    this.el = el("div", { class: "visually-hidden", role: "status", "aria-live": "polite", "aria-atomic": "true",
      "data-testid": "announcer" });
    this.ply = null;
    this.turn = null;
  }

  /**
   * Say the moves made since the last view (`moveTexts(n)`: the texts of the last n moves) and, when `turnKey` (the
   * seat to move, or "over") changed, `turnText` (whose turn, or the result).
   */
  update(ply, turnKey, moveTexts, turnText) {
    const parts = this.ply !== null && ply > this.ply ? moveTexts(Math.min(3, ply - this.ply)) : [];
    if (turnKey !== this.turn) parts.push(turnText);
    this.ply = ply;
    this.turn = turnKey;
    if (parts.length) this.say(parts.join(". "));
  }

  /** Say one line now (the board cursor's cell, an error). */
  say(text) {
    this.el.textContent = text;
  }
}
