// The Domain Wheel board view: lands, owners, thrones and points, start-land names, pieces, destinations by move
// kind (rule 11.1), lands being taken (rule 11.8). Game-specific drawing and input live here; board/hexmap.js is the
// game-agnostic hex SVG with its camera.
//
// The server's JSON (docs/PLAY.md: layout and state view, cells named [q, r]) is turned into cell indices once by
// normaliseLayout / normaliseState below; everything else here works on indices:
//   layout: {cells: [[q, r]], cellLand: [land], lands: [{coord, throne, points, ring, start}], centre, players, options}
//   state:  {turn, round, over, pieces: [{cell, player, kind}], owners: [player|-1], holds: [{player, land, turns,
//            kind: "conquest"|"liberation"}], movable: Set(cell), canRequestEnd, lands (details), log, ...}
// Destinations come from the server per selected piece (hooks.destinations(cell) -> [{to: cell, colour, kinds}]).

import { PointCursor } from "./cursor.js";
import { HexGrid, HexMap, hexPoints, svg } from "./hexmap.js";
import { t, seatName } from "../i18n.js";

export const PLAYER_KEYS = ["blue", "green", "red"];
export const PLAYER_COLOURS = ["#286ee6", "#28aa46", "#d7322d"];
/** The smallest tap target (CSS px, WCAG 2.5.8 asks 24; issue 46 asks 32). */
const TAP_TARGET = 32;
/** A cell's width across (CSS px) when a piece is picked: its destination (95 % of a cell) stays a 32 px tap target. */
const TAP_PX = 36;
const PLAYER_SHAPES = ["circle", "square", "triangle"]; // shapes tell players apart without colour

/** The marker colour of a destination (rule 11.1): green normal move, orange double step / jump, violet swap. */
export function moveColour(kinds) {
  if (kinds.some((k) => ["step", "king_move", "fast_knight"].includes(k))) return "green";
  if (kinds.some((k) => ["double_step", "jump"].includes(k))) return "orange";
  return "violet";
}

/** The static layout in cell indices (see the module comment). `players`: [{name, ai, aiName}] per seat. */
export function normaliseLayout(L, players = []) {
  const key = (q, r) => `${q},${r}`;
  const index = new Map(L.cells.map(([q, r], i) => [key(q, r), i]));
  return {
    key: L.key,
    cells: L.cells,
    index,
    cellLand: L.cell_land,
    lands: L.lands.map((l) => ({
      coord: l.coord,
      throne: index.get(key(...l.throne)),
      points: l.points,
      ring: l.ring,
      start: l.start_of ?? null,
    })),
    centre: L.centre,
    landRadius: L.land_radius,
    colours: L.colours || PLAYER_COLOURS,
    players: [0, 1, 2].map((p) => ({ ...(players[p] || {}) })),
    options: {
      ...(L.options || {}),
      turns_to_conquer: L.turns_to_conquer ?? L.options?.turns_to_conquer,
      end_request_points: L.end_request_points,
      centre_min_points: L.centre_min_points,
      liberation_turns: L.liberation_turns ?? 2,
      max_rounds: L.options?.max_rounds,
    },
  };
}

/** The cell index of a [q, r] pair of a normalised layout (-1 when off the map). */
export function cellIndex(layout, qr) {
  if (!qr) return -1;
  const i = layout.index.get(`${qr[0]},${qr[1]}`);
  return i === undefined ? -1 : i;
}

/** A state view in cell indices (see the module comment). */
export function normaliseState(layout, v) {
  const c = (qr) => cellIndex(layout, qr);
  const res = v.result || {};
  return {
    raw: v,
    ply: v.ply,
    turn: v.turn,
    round: v.round,
    over: Boolean(v.over),
    truncated: Boolean(res.truncated),
    endReason: res.end_reason || null,
    winners: res.winners || [],
    leaders: res.leaders || [],
    scores: v.players.map((p) => p.score),
    players: v.players,
    countdown: v.countdown,
    pieces: v.pieces.map((p) => ({ cell: c(p.cell), player: p.player, kind: p.kind })),
    owners: v.lands.map((l) => (l.owner === null || l.owner === undefined ? -1 : l.owner)),
    lands: v.lands,
    holds: (v.taking || []).map((h) => ({ player: h.player, land: h.land, turns: h.held, total: h.needed, kind: h.mode })),
    movable: new Set((v.movable || []).map(c)),
    canRequestEnd: Boolean(v.can_request_end),
    log: v.log || [],
    last: v.last || null,
  };
}

function shapePath(shape, x, y, r) {
  if (shape === "square") {
    const s = r * 0.86;
    return `M${x - s} ${y - s}h${2 * s}v${2 * s}h${-2 * s}z`;
  }
  if (shape === "triangle") {
    const h = r * 1.15;
    return `M${x} ${y - h}L${x + h * 0.95} ${y + h * 0.62}L${x - h * 0.95} ${y + h * 0.62}z`;
  }
  return `M${x - r} ${y}a${r} ${r} 0 1 0 ${2 * r} 0a${r} ${r} 0 1 0 ${-2 * r} 0z`;
}

function crownPath(x, y, r) {
  const w = r;
  const h = r * 0.8;
  const top = y - h * 0.55;
  const base = y + h * 0.45;
  return `M${x - w} ${base}L${x - w} ${top}L${x - w * 0.5} ${y - h * 0.05}L${x} ${top - h * 0.15}L${x + w * 0.5} ${
    y - h * 0.05
  }L${x + w} ${top}L${x + w} ${base}z`;
}

function arcPath(x, y, r, a0, a1) {
  const p0 = [x + r * Math.cos(a0), y + r * Math.sin(a0)];
  const p1 = [x + r * Math.cos(a1), y + r * Math.sin(a1)];
  const large = a1 - a0 > Math.PI ? 1 : 0;
  return `M${p0[0].toFixed(3)} ${p0[1].toFixed(3)}A${r} ${r} 0 ${large} 1 ${p1[0].toFixed(3)} ${p1[1].toFixed(3)}`;
}

export class DomainWheelView {
  /**
   * @param {HTMLElement} container
   * @param {object} layout normalised layout
   * @param {{onMove?: Function, onHoverLand?: Function, onSelect?: Function, interactive?: boolean}} hooks
   */
  constructor(container, layout, hooks = {}) {
    this.layout = layout;
    this.hooks = hooks;
    this.grid = new HexGrid(layout.cells);
    this.map = new HexMap(container, this.grid);
    this.map.root.setAttribute("aria-label", t("board.label"));
    this.state = null;
    this.selected = -1;
    this.dests = null;
    this.seat = null; // the seat this browser plays (null: spectator / all seats shown read-only)
    this.interactive = hooks.interactive !== false;
    this._defs();
    this._lightDef();
    this._drawStatic();
    this.pointer = this._makePointer();
    this.map.root.addEventListener("click", (ev) => this._click(ev));
    this.map.root.addEventListener("keydown", (ev) => {
      if ((ev.key === "Enter" || ev.key === " ") && ev.target.closest?.("[data-cell][tabindex]")) {
        ev.preventDefault();
        ev.stopPropagation();
        const wasPiece = ev.target.closest(".piece");
        this._click(ev);
        // keep the keyboard where the player is: on the first destination after picking a piece
        if (wasPiece) this._focusFirstDestination = true;
      }
    });
    this.map.root.addEventListener("mouseover", (ev) => this._hover(ev));
    this.map.root.addEventListener("mouseleave", () => this.hooks.onHoverLand?.(-1));
  }

  destroy() {
    this.map.root.remove();
  }

  _defs() {
    const d = this.map.defs;
    // owner patterns: stripes for Blue, dots for Green, back stripes for Red (colour is not the only cue)
    const pats = [
      ["pat-0", '<path d="M-1 1l2 -2M0 4l4 -4M3 5l2 -2" stroke-width="0.35"/>'],
      ["pat-1", '<circle cx="2" cy="2" r="0.55"/>'],
      ["pat-2", '<path d="M-1 3l2 2M0 0l4 4M3 -1l2 2" stroke-width="0.35"/>'],
    ];
    pats.forEach(([id, body], p) => {
      const pat = svg("pattern", { id: `${id}-${this._uid()}`, width: 4, height: 4, patternUnits: "userSpaceOnUse",
        patternTransform: "scale(0.5)" }, d);
      pat.innerHTML = body;
      pat.setAttribute("stroke", PLAYER_COLOURS[p]);
      pat.setAttribute("fill", PLAYER_COLOURS[p]);
      this[`pat${p}`] = pat.id;
    });
  }

  _lightDef() {
    this.lightId = `light-${this._uid()}`;
    const grad = svg("linearGradient", { id: this.lightId, x1: 0, y1: 1, x2: 0, y2: 0 }, this.map.defs);
    svg("stop", { offset: 0, "stop-color": "#ffd54a", "stop-opacity": 0.9 }, grad);
    svg("stop", { offset: 1, "stop-color": "#ffd54a", "stop-opacity": 0 }, grad);
  }

  _uid() {
    if (!DomainWheelView._n) DomainWheelView._n = 0;
    this._id = this._id || ++DomainWheelView._n;
    return this._id;
  }

  _drawStatic() {
    const { layout, grid } = this;
    const L = this.map.layers;
    this.cellEls = layout.cells.map((_, i) => {
      const [x, y] = grid.xy[i];
      const land = layout.cellLand[i];
      return svg("polygon", {
        points: hexPoints(x, y, 1),
        class: `cell${land === layout.centre ? " centre" : ""}${layout.lands[land].start !== null ? " start" : ""}`,
        "data-cell": i,
        "data-land": land,
        "data-qr": `${layout.cells[i][0]},${layout.cells[i][1]}`,
      }, L.cells);
    });
    this.ownerEls = layout.lands.map((land, li) => {
      const cells = new Set(layout.cells.map((_, i) => i).filter((i) => layout.cellLand[i] === li));
      land.cellSet = cells;
      const g = svg("g", { class: "land-owner", "data-land": li }, L.owners);
      const d = [...cells].map((i) => `M${hexPoints(...grid.xy[i], 1.02).replace(/ /g, "L")}z`).join("");
      svg("path", { d, class: "owner-fill" }, g);
      svg("path", { d, class: "owner-pattern" }, g);
      return g;
    });
    svg("path", { d: grid.borderPath((i) => layout.cellLand[i]), class: "land-borders" }, L.borders);
    layout.lands.forEach((land, li) => {
      const [x, y] = grid.xy[land.throne];
      svg("polygon", { points: hexPoints(x, y, 0.9), class: "throne", "data-land": li }, L.thrones);
      if (land.points > 0) {
        // bigger lands get bigger numbers, so they stay readable in the overview of a big map
        const size = Math.max(1.05, 0.55 * (layout.landRadius ?? 2));
        const txt = svg("text", { x, y, class: "points", "data-testid": "land-points", "data-land": li,
          style: `font-size:${size.toFixed(2)}px` }, L.labels);
        txt.textContent = String(land.points);
      }
      if (land.start !== null && land.start !== undefined) {
        // start lands show their owner's name (rule 11.7), just outside the map, away from the centre
        const [cx, cy] = grid.xy[layout.lands[layout.centre].throne];
        const len = Math.hypot(x - cx, y - cy) || 1;
        const reach = 1.5 * (layout.landRadius ?? 2) + 1.7 + 0.3 * Math.max(0, (layout.landRadius ?? 2) - 2);
        const name = svg("text", {
          x: x + ((x - cx) / len) * reach,
          y: y + ((y - cy) / len) * reach,
          class: `start-name p${land.start}`,
          style: `font-size:${Math.max(1.5, 0.75 * (layout.landRadius ?? 2)).toFixed(2)}px`,
          "data-testid": "start-name",
          "data-player": land.start,
        }, L.labels);
        name.textContent = seatName(layout.players[land.start], `player.${PLAYER_KEYS[land.start]}`);
      }
    });
  }

  /** Redraw everything that changes with the state. */
  update(state) {
    const plyChanged = !this.state || this.state.ply !== state.ply;
    this.state = state;
    if (plyChanged || (this.selected >= 0 && !this._canSelect(this.selected))) {
      this.selected = -1;
      this.dests = null;
    }
    this._drawOwners();
    this._drawHolds();
    this._drawLastMove();
    this._drawPieces();
    this._drawDestinations();
  }

  relabel() {
    for (const el of this.map.layers.labels.querySelectorAll(".start-name")) {
      const p = Number(el.dataset.player);
      el.textContent = seatName(this.layout.players[p], `player.${PLAYER_KEYS[p]}`);
    }
    if (this.state) this._drawHolds();
  }

  _drawOwners() {
    const { owners } = this.state;
    this.ownerEls.forEach((g, li) => {
      const o = owners[li];
      g.dataset.owner = String(o);
      g.classList.toggle("owned", o >= 0);
      const [fill, pat] = g.children;
      // inline styles: they win over the stylesheet's "no owner" look
      fill.style.fill = o >= 0 ? PLAYER_COLOURS[o] : "";
      pat.style.fill = o >= 0 ? `url(#${this[`pat${o}`]})` : "";
    });
  }

  _drawHolds() {
    const { marks, badges } = this.map.layers;
    marks.replaceChildren();
    for (const old of badges.querySelectorAll(".hold-badge")) old.remove();
    const K = this.layout.options.turns_to_conquer;
    const perLand = new Map();
    for (const h of this.state.holds) {
      if (!perLand.has(h.land)) perLand.set(h.land, []);
      perLand.get(h.land).push(h);
    }
    for (const [li, hs] of perLand) {
      const land = this.layout.lands[li];
      const [x, y] = this.grid.xy[land.throne];
      hs.forEach((h, k) => {
        const total = h.total || (h.kind === "conquest" ? K : this.layout.options.liberation_turns);
        const colour = PLAYER_COLOURS[h.player];
        const last = h.turns >= total - 1;
        // the land marked with the taker's colour: vivid + solid border for a conquest, light + dashes for liberation
        const g = svg("g", {
          class: `taking ${h.kind}${last ? " last-turn" : ""}`,
          "data-testid": "taking",
          "data-land": li,
          "data-player": h.player,
          "data-kind": h.kind,
          "data-turns": h.turns,
        }, marks);
        const outline = this.grid.outlinePath(land.cellSet);
        const d = [...land.cellSet].map((i) => `M${hexPoints(...this.grid.xy[i], 1.0).replace(/ /g, "L")}z`).join("");
        svg("path", { d, class: "taking-fill" }, g).style.fill = colour;
        svg("path", { d: outline, class: "taking-border" }, g).style.stroke = colour;
        // ring around the throne, one segment per turn
        const rr = 1.55 + 0.45 * k;
        const gap = 0.12;
        for (let s = 0; s < total; s++) {
          const a0 = -Math.PI / 2 + (2 * Math.PI * s) / total + gap / 2;
          const a1 = -Math.PI / 2 + (2 * Math.PI * (s + 1)) / total - gap / 2;
          const seg = svg("path", { d: arcPath(x, y, rr, a0, a1), class: `ring-seg${s < h.turns ? " held" : ""}` }, g);
          if (s < h.turns) seg.style.stroke = colour;
        }
        if (h.kind === "conquest") {
          // with the king: a golden ring and a column of light over the throne (rule 11.8)
          svg("circle", { cx: x, cy: y, r: 1.05, class: "gold-ring" }, g);
          svg("rect", { x: x - 0.32, y: y - 4.2, width: 0.64, height: 4.2, rx: 0.3, class: "light-column",
            fill: `url(#${this.lightId})` }, g);
        }
        // the badge with the turns held
        const label = h.kind === "conquest" ? t("board.conquest_badge") : t("board.liberation_badge");
        const bw = 5.6;
        const bh = 1.5;
        const by = y + 2.1 + k * 1.75;
        const b = svg("g", {
          class: `hold-badge ${h.kind}`,
          "data-testid": "hold-badge",
          "data-land": li,
          "data-player": h.player,
          "data-kind": h.kind,
        }, badges);
        const rect = svg("rect", { x: x - bw / 2, y: by, width: bw, height: bh, rx: 0.5, fill: colour }, b);
        const tx = svg("text", { x, y: by + bh / 2, class: "badge-text" }, b);
        tx.textContent = `${h.kind === "conquest" ? "♚" : "⛉"} ${h.turns}/${total} · ${label}`;
        const w = (tx.getComputedTextLength?.() || 0) + 0.9; // fit the badge to its text
        if (w > 1) {
          rect.setAttribute("x", String(x - w / 2));
          rect.setAttribute("width", String(w));
        }
      });
    }
  }

  /** The last move as a faint arrow in the mover's colour, so an AI's move can be followed. */
  _drawLastMove() {
    const L = this.map.layers.trail;
    L.replaceChildren();
    const last = this.state.last;
    if (!last || last.action !== "move") return;
    const a = cellIndex(this.layout, last.from);
    const b = cellIndex(this.layout, last.to);
    if (a < 0 || b < 0) return;
    const [x0, y0] = this.grid.xy[a];
    const [x1, y1] = this.grid.xy[b];
    const colour = PLAYER_COLOURS[last.seat] || "#000";
    const g = svg("g", { class: "last-move", "data-testid": "last-move", "data-from": a, "data-to": b }, L);
    svg("circle", { cx: x0, cy: y0, r: 0.45, class: "last-from" }, g).style.stroke = colour;
    svg("line", { x1: x0, y1: y0, x2: x1, y2: y1, class: "last-line" }, g).style.stroke = colour;
    svg("circle", { cx: x1, cy: y1, r: 0.95, class: "last-to" }, g).style.stroke = colour;
  }

  _drawPieces() {
    const L = this.map.layers.pieces;
    L.replaceChildren();
    if (!this._thronePoints?.isConnected) this._thronePoints = svg("g", { class: "throne-points" }, this.map.layers.badges);
    this._thronePoints.replaceChildren();
    const locked = this.state.countdown ? this.state.countdown.holder : -1;
    for (const pc of this.state.pieces) {
      const [x, y] = this.grid.xy[pc.cell];
      const movable = this._canSelect(pc.cell);
      const g = svg("g", {
        class: `piece ${pc.kind} p${pc.player}${movable ? " movable" : ""}${pc.cell === this.selected ? " selected" : ""}`,
        "data-testid": `piece-${pc.kind}`,
        "data-cell": pc.cell,
        "data-player": pc.player,
        "aria-label": `${t(`player.${PLAYER_KEYS[pc.player]}`)} ${t(`board.${pc.kind}`)} ${this.layout.cells[pc.cell].join(",")}`,
        tabindex: movable ? 0 : null, // keyboard play: Tab to a piece, Enter or Space picks it
        role: movable ? "button" : "img", // a labelled group needs a role (axe: aria-prohibited-attr)
      }, L);
      const shape = PLAYER_SHAPES[pc.player];
      const colour = PLAYER_COLOURS[pc.player];
      if (pc.kind === "king") {
        svg("path", { d: shapePath(shape, x, y, 0.78), fill: colour, class: "king-body" }, g);
        svg("path", { d: crownPath(x, y + 0.02, 0.42), class: "crown" }, g);
        if (pc.player === locked) svg("circle", { cx: x, cy: y, r: 1.0, class: "locked" }, g);
      } else {
        svg("path", { d: shapePath(shape, x, y, 0.52), fill: colour, class: "knight-body" }, g);
        svg("circle", { cx: x, cy: y, r: 0.16, class: "knight-dot" }, g);
      }
      // a piece on a throne hides the points: show them as a small badge (rule 11.7)
      const land = this.layout.lands[this.layout.cellLand[pc.cell]];
      if (land.throne === pc.cell && land.points > 0) {
        // in the badges layer, under every piece: it may not cover a neighbouring piece
        const B = this._thronePoints;
        svg("circle", { cx: x + 0.9, cy: y - 0.9, r: 0.5, class: "points-badge" }, B);
        const txt = svg("text", { x: x + 0.9, y: y - 0.9, class: "points small" }, B);
        txt.textContent = String(land.points);
      }
    }
  }

  _canSelect(cell) {
    const s = this.state;
    if (!s || s.over || !this.interactive) return false;
    if (this.seat !== null && s.turn !== this.seat) return false;
    return s.movable.has(cell);
  }

  _drawDestinations() {
    const L = this.map.layers.dest;
    L.replaceChildren();
    // while destinations show, the badges and point labels fade under them (css/board.css)
    this.map.root.classList.toggle("choosing", this.selected >= 0 && !!this.dests);
    if (this.selected < 0 || !this.dests) return;
    for (const [dst, d] of this.dests) {
      const [x, y] = this.grid.xy[dst];
      const colour = d.colour || moveColour(d.kinds || []);
      const g = svg("g", {
        class: `dest ${colour}`,
        "data-testid": "destination",
        "data-cell": dst,
        "data-qr": this.layout.cells[dst].join(","),
        "data-kind": colour,
        "data-kinds": (d.kinds || []).join(" "),
        role: "button",
        tabindex: 0,
        "aria-label": `${this.layout.cells[dst].join(",")}: ${(d.kinds || []).map((n) => t(`kind.${n}`)).join(", ")}`,
      }, L);
      svg("polygon", { points: hexPoints(x, y, 0.95), class: "dest-hit" }, g);
      // a shape per colour, so the kinds are told apart without colour too
      if (colour === "green") svg("circle", { cx: x, cy: y, r: 0.36, class: "dest-mark" }, g);
      else if (colour === "orange") {
        svg("path", { d: `M${x} ${y - 0.5}L${x + 0.5} ${y}L${x} ${y + 0.5}L${x - 0.5} ${y}z`, class: "dest-mark" }, g);
      } else {
        svg("circle", { cx: x, cy: y, r: 0.5, class: "dest-mark swap-ring" }, g);
        const tx = svg("text", { x, y, class: "swap-glyph" }, g);
        tx.textContent = "⇄";
      }
    }
  }

  /** Select a piece (or drop the selection with -1); its destinations come from hooks.destinations. */
  async select(cell) {
    delete this.map.root.dataset.framing;
    const cellOk = cell >= 0 && this._canSelect(cell);
    this.selected = cellOk ? cell : -1;
    this.dests = null;
    this._drawPieces();
    this._drawDestinations();
    this.hooks.onSelect?.(this.selected);
    if (!cellOk || !this.hooks.destinations) return;
    const ply = this.state.ply;
    const token = (this._selToken = (this._selToken || 0) + 1);
    let list;
    try {
      list = await this.hooks.destinations(cell);
    } catch (err) {
      if (token === this._selToken) this.select(-1);
      return;
    }
    if (token !== this._selToken || this.selected !== cell || this.state.ply !== ply) return;
    this.dests = new Map(list.map((d) => [d.to, d]));
    this.map.root.dataset.selected = String(cell);
    this._drawDestinations();
    this._frameSelection(cell);
    if (this._focusFirstDestination) this.map.layers.dest.querySelector("[tabindex]")?.focus();
    this._focusFirstDestination = false;
    this.hooks.onDestinations?.(cell, this.dests);
  }

  /** Bring a picked piece and its destinations on screen at a size a finger can tap (issue 46: 32 CSS px). */
  _frameSelection(cell) {
    const pts = [cell, ...this.dests.keys()].map((i) => this.grid.xy[i]);
    const xs = pts.map((p) => p[0]);
    const ys = pts.map((p) => p[1]);
    this.map.frame([Math.min(...xs) - 1, Math.min(...ys) - 1, Math.max(...xs) + 1, Math.max(...ys) + 1], TAP_PX);
    this.map.root.dataset.framing = "done";
  }

  _cellFromEvent(ev) {
    const el = ev.target.closest("[data-cell]");
    return el ? Number(el.dataset.cell) : -1;
  }

  _click(ev) {
    let cell = this._cellFromEvent(ev);
    // a piece or destination drawn smaller than a 32 px tap target still takes a tap within 16 px of its centre
    if (ev.clientX !== undefined && !this._canSelect(cell) && !this.dests?.has(cell)) {
      cell = this._nearTarget(ev.clientX, ev.clientY) ?? cell;
    }
    this._clickCell(cell);
  }

  /** The cell of the movable piece or destination whose centre is nearest (x, y) within a 32 px target, or null. */
  _nearTarget(x, y) {
    let best = null;
    let bestD = Infinity;
    for (const el of this.map.root.querySelectorAll(".piece.movable, .dest")) {
      const r = el.getBoundingClientRect();
      const reach = Math.max(TAP_TARGET, r.width, r.height) / 2; // 16 px, or the mark's own half-size
      const d = Math.hypot(x - (r.left + r.width / 2), y - (r.top + r.height / 2));
      if (d <= reach && d < bestD) {
        bestD = d;
        best = Number(el.dataset.cell);
      }
    }
    return best;
  }

  /** What a click on a cell does: move the picked piece there, pick the piece there, or drop the piece. */
  _clickCell(cell) {
    if (!this.state || cell < 0) return;
    if (this.selected >= 0 && this.dests && this.dests.has(cell)) {
      const src = this.selected;
      this.selected = -1;
      this.dests = null;
      this._drawDestinations();
      this.hooks.onMove?.(src, cell);
      return;
    }
    if (this._canSelect(cell)) this.select(cell === this.selected ? -1 : cell);
    else if (this.selected >= 0) this.select(-1); // an illegal click drops the piece and changes nothing else
  }

  /**
   * Keyboard play without ~26 Tab presses: arrows move a cursor over the cells in the screen's directions, whatever
   * the camera's turn (board/cursor.js, shared with Alveole and Conquer), Enter or Space does what a click there does.
   * Returns true when the key was one of them. The camera follows the cursor; hooks.onCursor hears where it is.
   */
  cursorKey(ev) {
    if (!this.state || !this.pointer.key(ev)) return false;
    const at = this.pointer.at;
    if (ev.key.startsWith("Arrow")) {
      const there = this.map.root.querySelector(`.dest[data-cell="${at}"], .piece[data-cell="${at}"]`);
      this.hooks.onCursor?.(at, there?.getAttribute("aria-label") || this.pointer.label(at));
    }
    return true;
  }

  /** Return the keyboard cursor over the cells: it starts on the picked piece or the player's king. */
  _makePointer() {
    return new PointCursor(this.map.layers.cursor, this.grid.xy, {
      camera: this.map,
      start: () => {
        const own = this.kingCell(this.seat ?? this.state.turn);
        return this.selected >= 0 ? this.selected : own >= 0 ? own : 0;
      },
      press: (i) => {
        const picked = this._canSelect(i);
        this._clickCell(i);
        if (!picked) this.pointer.draw(); // a move or a drop: the cursor stays where it is
      },
      label: (i) => this.layout.cells[i].join(","),
      mark: (g, x, y, cls) => svg("polygon", { points: hexPoints(x, y, 0.98), class: cls }, g),
    });
  }

  _hover(ev) {
    const el = ev.target.closest("[data-cell]");
    if (!el) return;
    const cell = Number(el.dataset.cell);
    this.hooks.onHoverLand?.(this.layout.cellLand[cell], cell);
  }

  /** The cell of a player's king, or -1. */
  kingCell(player) {
    const k = this.state?.pieces.find((p) => p.player === player && p.kind === "king");
    return k ? k.cell : -1;
  }
}
