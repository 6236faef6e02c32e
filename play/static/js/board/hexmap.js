// Hex map geometry -> SVG, with a camera (zoom, pan, pinch) driven by the viewBox, so the map is crisp at any zoom.
//
// Cells use axial coordinates (q, r), pointy-top, like dw_env/geometry.py:
//   x = sqrt(3) * (q + r / 2),  y = 3/2 * r   (in hex sizes; screen y points down)
// The six neighbour directions, in the fixed order D of the spec (1.1):
//   (1,0) (1,-1) (0,-1) (-1,0) (-1,1) (0,1)
// Corner i of a hex sits at angle -30 + 60 i degrees; the edge towards direction d joins EDGE_CORNERS[d].
// This module knows nothing about any game: a game view (board/domain_wheel.js) draws into its layers.

export const SVG_NS = "http://www.w3.org/2000/svg";
export const SQRT3 = Math.sqrt(3);
export const DIRECTIONS = [[1, 0], [1, -1], [0, -1], [-1, 0], [-1, 1], [0, 1]];
const CORNERS = [0, 1, 2, 3, 4, 5].map((i) => {
  const a = ((-30 + 60 * i) * Math.PI) / 180;
  return [Math.cos(a), Math.sin(a)];
});
export const EDGE_CORNERS = [[0, 1], [5, 0], [4, 5], [3, 4], [2, 3], [1, 2]];
// Domain Wheel's layers: pieces and destinations are drawn last, so no badge or label ever hides or catches a click
// meant for them; the panels sit beside the board (css/layout.css), so its overview's pad only needs room for names
const DW_LAYERS = ["cells", "owners", "borders", "marks", "thrones", "labels", "trail", "badges", "pieces", "dest", "cursor"];

/** Pixel centre (in hex sizes) of the axial cell (q, r). */
export function axialToXY(q, r) {
  return [SQRT3 * (q + r / 2), 1.5 * r];
}

/** SVG points string of a hex of circumradius s centred on (x, y). */
export function hexPoints(x, y, s = 1) {
  return CORNERS.map(([cx, cy]) => `${(x + s * cx).toFixed(3)},${(y + s * cy).toFixed(3)}`).join(" ");
}

/** Corner k of the hex centred on (x, y). */
export function corner(x, y, k, s = 1) {
  return [x + s * CORNERS[k][0], y + s * CORNERS[k][1]];
}

/** Create an SVG element with attributes. */
export function svg(tag, attrs = {}, parent = null) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  }
  if (parent) parent.appendChild(el);
  return el;
}

/** A cell grid: index <-> axial coordinate, neighbours, pixel centres. */
export class HexGrid {
  /** @param {Array<[number, number]>} cells axial [q, r] in cell index order */
  constructor(cells) {
    this.cells = cells;
    this.index = new Map(cells.map(([q, r], i) => [`${q},${r}`, i]));
    this.xy = cells.map(([q, r]) => axialToXY(q, r));
    const xs = this.xy.map((p) => p[0]);
    const ys = this.xy.map((p) => p[1]);
    this.bounds = {
      minX: Math.min(...xs) - SQRT3 / 2,
      maxX: Math.max(...xs) + SQRT3 / 2,
      minY: Math.min(...ys) - 1,
      maxY: Math.max(...ys) + 1,
    };
  }

  cellAt(q, r) {
    const i = this.index.get(`${q},${r}`);
    return i === undefined ? -1 : i;
  }

  neighbour(i, d) {
    const [q, r] = this.cells[i];
    return this.cellAt(q + DIRECTIONS[d][0], r + DIRECTIONS[d][1]);
  }

  /** SVG path data of every cell edge where groupOf differs across it (or the map ends): region borders. */
  borderPath(groupOf) {
    const parts = [];
    for (let i = 0; i < this.cells.length; i++) {
      const [x, y] = this.xy[i];
      for (let d = 0; d < 6; d++) {
        const n = this.neighbour(i, d);
        if (n >= 0 && (groupOf(n) === groupOf(i) || n < i)) continue; // shared edges drawn once
        const [a, b] = EDGE_CORNERS[d];
        const p = corner(x, y, a);
        const q = corner(x, y, b);
        parts.push(`M${p[0].toFixed(3)} ${p[1].toFixed(3)}L${q[0].toFixed(3)} ${q[1].toFixed(3)}`);
      }
    }
    return parts.join("");
  }

  /** Path data of the outline of a set of cells (edges towards cells outside the set). */
  outlinePath(cellSet) {
    const parts = [];
    for (const i of cellSet) {
      const [x, y] = this.xy[i];
      for (let d = 0; d < 6; d++) {
        const n = this.neighbour(i, d);
        if (n >= 0 && cellSet.has(n)) continue;
        const [a, b] = EDGE_CORNERS[d];
        const p = corner(x, y, a);
        const q = corner(x, y, b);
        parts.push(`M${p[0].toFixed(3)} ${p[1].toFixed(3)}L${q[0].toFixed(3)} ${q[1].toFixed(3)}`);
      }
    }
    return parts.join("");
  }
}

/**
 * An SVG element with a camera. Zoom with the wheel (Shift: twice as fast), buttons or pinch; pan by dragging
 * (mouse or one finger) or with WASD/arrows; turn with Q/E, a right-button drag or two fingers twisting (rule 11.10).
 * Zoom and pan are the viewBox, so strokes and text stay sharp; the turn is a rotation of the layers' group about the
 * map's centre, with texts and pieces turned back upright (css/board.css, --cam-angle). "User" coordinates below are
 * the viewBox's (the screen's axes), "map" coordinates the cells' (hexmap.js's diagram).
 *
 * The camera knows no game and no hex: `grid` is anything with `bounds` ({minX, maxX, minY, maxY}) and `xy` (point
 * centres), so the square Conquer board uses it too. Options: `layers` (the groups drawn into, bottom first), `pad`
 * (map units around the bounds in the overview), `turnStep` (degrees a Q/E press turns) and `snap` (0: the camera
 * turns freely; 90: it turns only in quarter turns, a drag or a twist turning it once it passes half of one).
 */
export class HexMap {
  constructor(container, grid, { testid = "board", layers = DW_LAYERS, pad = 2.5, turnStep = 15, snap = 0 } = {}) {
    this.grid = grid;
    this.root = svg("svg", {
      class: "hexmap",
      "data-testid": testid,
      role: "group",
      "aria-label": "map",
      preserveAspectRatio: "xMidYMid meet",
    });
    container.appendChild(this.root);
    this.defs = svg("defs", {}, this.root);
    this.layers = {};
    this.camera = svg("g", { class: "camera" }, this.root);
    this.angle = 0;
    this.turnStep = turnStep;
    this.snap = snap;
    this._pendingTurn = 0; // a snapping camera's drag or twist not yet worth a step
    for (const name of layers) this.layers[name] = svg("g", { class: `layer-${name}` }, this.camera);
    const b = grid.bounds;
    this.pad = pad;
    const [xs, ys] = [grid.xy.map((p) => p[0]), grid.xy.map((p) => p[1])];
    const spread = (vs) => Math.max(...vs) - Math.min(...vs);
    this._margins = [b.maxX - b.minX - spread(xs), b.maxY - b.minY - spread(ys)]; // the bounds past the points
    this.home = { x: b.minX - pad, y: b.minY - pad, w: b.maxX - b.minX + 2 * pad, h: b.maxY - b.minY + 2 * pad };
    this.view = { ...this.home };
    this.minW = 8;
    this.maxW = this.home.w * 2;
    this.dragMoved = false;
    this._apply();
    this._bindPointer();
    new ResizeObserver(() => this._apply()).observe(this.root);
  }

  _apply() {
    const v = this.view;
    this.root.setAttribute("viewBox", `${v.x.toFixed(3)} ${v.y.toFixed(3)} ${v.w.toFixed(3)} ${v.h.toFixed(3)}`);
    this.root.dataset.zoom = (this.wholeView().w / v.w).toFixed(3); // 1: the whole board, at any turn
    this.root.dataset.angle = String(Math.round(this.angle));
    this.root.style.setProperty("--cam-angle", `${this.angle}deg`);
    const [cx, cy] = this._pivot();
    this.camera.setAttribute("transform", this.angle ? `rotate(${this.angle.toFixed(2)} ${cx} ${cy})` : "");
  }

  /** The map's centre, about which the camera turns. */
  _pivot() {
    return [this.home.x + this.home.w / 2, this.home.y + this.home.h / 2];
  }

  /**
   * Return the view that shows the whole map turned by `deg` degrees: the turned points' extent, with the cells'
   * margins around them turned too, and the overview's pad (a 39 x 32 board turned a quarter is 32 wide, 39 high).
   */
  wholeView(deg = this.angle) {
    if (!(deg % 360)) return { ...this.home };
    if (this._whole?.deg !== deg) this._whole = { deg, view: this._turnedExtent(deg) }; // a drag asks on every move
    return { ...this._whole.view };
  }

  /** Return the box (user coordinates) of the map's points turned by `deg`, their margins and the pad around it. */
  _turnedExtent(deg) {
    const a = (deg * Math.PI) / 180;
    const [c, s] = [Math.cos(a), Math.sin(a)];
    const [cx, cy] = this._pivot();
    const xs = this.grid.xy.map(([x, y]) => cx + (x - cx) * c - (y - cy) * s);
    const ys = this.grid.xy.map(([x, y]) => cy + (x - cx) * s + (y - cy) * c);
    const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
    // the bounds reach past the outermost points by a cell's half-size: turned, that margin turns too
    const [mx, my] = this._margins;
    const w = x1 - x0 + Math.abs(c) * mx + Math.abs(s) * my + 2 * this.pad;
    const h = y1 - y0 + Math.abs(s) * mx + Math.abs(c) * my + 2 * this.pad;
    return { x: (x0 + x1 - w) / 2, y: (y0 + y1 - h) / 2, w, h };
  }

  /**
   * Return whether the view is the whole map at the camera's turn (the overview, or a turn made from it), to 2 % of
   * its width: two fingers twisting also pinch a little, which must not make a board turned from the overview overflow.
   */
  _showsWhole() {
    const [v, whole] = [this.view, this.wholeView()];
    return ["x", "y", "w", "h"].every((k) => Math.abs(v[k] - whole[k]) < 0.02 * whole.w);
  }

  /** Map coordinates -> user (viewBox) coordinates under the camera's turn. */
  toUser([x, y]) {
    const [cx, cy] = this._pivot();
    const a = (this.angle * Math.PI) / 180;
    const [dx, dy] = [x - cx, y - cy];
    return [cx + dx * Math.cos(a) - dy * Math.sin(a), cy + dx * Math.sin(a) + dy * Math.cos(a)];
  }

  /**
   * Turn the camera by `deg` degrees about the centre of the screen (what is there stays there). With `fit`, a camera
   * showing the whole map goes on showing it, fitted to the turned extent (a key's turn, a snapped drag's or twist's
   * quarter); a free drag or twist turns by small steps, and refitting at each would swallow the pinch that goes with it.
   */
  turn(deg, fit = true) {
    if (fit && this._showsWhole()) {
      this.angle = (((this.angle + deg) % 360) + 540) % 360 - 180;
      this.view = this.wholeView();
      this._apply();
      return;
    }
    const [cx, cy] = this._pivot();
    const mid = [this.view.x + this.view.w / 2, this.view.y + this.view.h / 2];
    const a = (-this.angle * Math.PI) / 180; // the map point now at the screen's centre...
    const [dx, dy] = [mid[0] - cx, mid[1] - cy];
    const onMap = [cx + dx * Math.cos(a) - dy * Math.sin(a), cy + dx * Math.sin(a) + dy * Math.cos(a)];
    this.angle = (((this.angle + deg) % 360) + 540) % 360 - 180;
    const [ux, uy] = this.toUser(onMap); // ...is kept there after the turn
    this.view.x += ux - mid[0];
    this.view.y += uy - mid[1];
    this._apply();
  }

  /** Turn by a drag's or a twist's `deg`: at once, or in `snap` steps once the turn so far is over half a step. */
  _dragTurn(deg) {
    if (!this.snap) {
      this.turn(deg, false);
      return;
    }
    this._pendingTurn += deg;
    // past half a step, strictly: a turn of exactly half would leave minus half, and turn back, for ever
    while (Math.abs(this._pendingTurn) > this.snap / 2) {
      const step = Math.sign(this._pendingTurn) * this.snap;
      this.turn(step);
      this._pendingTurn -= step;
    }
  }

  /** Return the size (CSS px) of one map unit on screen now. */
  unitPx() {
    return 1 / this._unitsPerPixel();
  }

  /** Screen-to-map scale: map units per CSS pixel (the SVG keeps the aspect with "meet"). */
  _unitsPerPixel() {
    const r = this.root.getBoundingClientRect();
    if (!r.width || !r.height) return 1;
    return Math.max(this.view.w / r.width, this.view.h / r.height);
  }

  /** Map coordinate under a client point. */
  clientToMap(cx, cy) {
    const r = this.root.getBoundingClientRect();
    const k = this._unitsPerPixel();
    const midX = this.view.x + this.view.w / 2;
    const midY = this.view.y + this.view.h / 2;
    return [midX + (cx - (r.left + r.width / 2)) * k, midY + (cy - (r.top + r.height / 2)) * k];
  }

  /** Zoom by factor (>1 zooms in) keeping the map point (mx, my) fixed on screen. */
  zoom(factor, mx = null, my = null) {
    const v = this.view;
    if (mx === null) {
      mx = v.x + v.w / 2;
      my = v.y + v.h / 2;
    }
    let w = v.w / factor;
    w = Math.min(this.maxW, Math.max(this.minW, w));
    const f = w / v.w;
    const h = v.h * f;
    this.view = { x: mx - (mx - v.x) * f, y: my - (my - v.y) * f, w, h };
    this._apply();
  }

  /** Pan by a fraction of the visible width/height. */
  pan(fx, fy) {
    this.view.x += fx * this.view.w;
    this.view.y += fy * this.view.h;
    this._apply();
  }

  /** Show the whole map, unturned (rule 11.10: R). */
  overview() {
    this.view = { ...this.home };
    this.angle = 0;
    this._apply();
  }

  /** Centre on a cell, zooming in to about `span` cells across. */
  focusCell(i, span = 24) {
    const [x, y] = this.toUser(this.grid.xy[i]);
    const w = Math.min(this.home.w, span * SQRT3);
    const h = (w * this.home.h) / this.home.w;
    this.view = { x: x - w / 2, y: y - h / 2, w, h };
    this._apply();
  }

  /**
   * Frame the map box [x0, y0, x1, y1] with cells at least `px` CSS pixels across: zoom in only as far as that needs
   * (a phone's overview shows cells of 10-20 px, too small to tap), and pan only when the box is not all on screen.
   */
  frame([mx0, my0, mx1, my1], px) {
    const corners = [[mx0, my0], [mx1, my0], [mx0, my1], [mx1, my1]].map((p) => this.toUser(p));
    const [x0, y0] = [Math.min(...corners.map((c) => c[0])), Math.min(...corners.map((c) => c[1]))];
    const [x1, y1] = [Math.max(...corners.map((c) => c[0])), Math.max(...corners.map((c) => c[1]))];
    const k = this._unitsPerPixel();
    const factor = Math.max(1, (px * k) / SQRT3);
    const cx = (x0 + x1) / 2;
    const cy = (y0 + y1) / 2;
    const v = this.view;
    const [vx0, vy0] = this.clientToMap(...this._corner(0));
    const [vx1, vy1] = this.clientToMap(...this._corner(1));
    const onScreen = x0 >= vx0 && y0 >= vy0 && x1 <= vx1 && y1 <= vy1;
    if (factor === 1 && onScreen) return;
    const w = Math.max(this.minW, v.w / factor);
    const h = (v.h * w) / v.w;
    this.view = { x: cx - w / 2, y: cy - h / 2, w, h };
    this._apply();
  }

  /** The top-left (0) or bottom-right (1) client corner of the SVG. */
  _corner(which) {
    const r = this.root.getBoundingClientRect();
    return which ? [r.right, r.bottom] : [r.left, r.top];
  }

  /** Handle a camera key; returns true when it was one (WASD / arrows pan, +/- zoom, R overview). */
  key(ev) {
    const k = ev.key.toLowerCase();
    const step = 0.12;
    // arrows pan too where no board cursor takes them (a spectator, the tutorial): WASD always do (rule 11.10)
    const moves = { w: [0, -step], arrowup: [0, -step], s: [0, step], arrowdown: [0, step],
      a: [-step, 0], arrowleft: [-step, 0], d: [step, 0], arrowright: [step, 0] };
    if (moves[k]) {
      this.pan(...moves[k]);
      return true;
    }
    if (k === "+" || k === "=") {
      this.zoom(1.25);
      return true;
    }
    if (k === "-" || k === "_") {
      this.zoom(1 / 1.25);
      return true;
    }
    if (k === "r") {
      this.overview();
      return true;
    }
    if (k === "q" || k === "e") {
      this.turn(k === "q" ? -this.turnStep : this.turnStep);
      return true;
    }
    return false;
  }

  _bindPointer() {
    const el = this.root;
    const pointers = new Map();
    let last = null;
    let pinch = null;
    let turning = null; // a right-button drag turns the camera: degrees per pixel across
    const TURN_PER_PX = 0.4;
    const twist = (p1, p2) => (Math.atan2(p2[1] - p1[1], p2[0] - p1[0]) * 180) / Math.PI;
    el.addEventListener("contextmenu", (ev) => ev.preventDefault());
    el.addEventListener(
      "wheel",
      (ev) => {
        ev.preventDefault();
        const speed = ev.shiftKey ? 2 : 1;
        const factor = Math.pow(1.0015, -ev.deltaY * speed);
        const [mx, my] = this.clientToMap(ev.clientX, ev.clientY);
        this.zoom(factor, mx, my);
      },
      { passive: false },
    );
    el.addEventListener("pointerdown", (ev) => {
      this.lastPointer = ev.pointerType; // a board may treat a finger's tap apart from a mouse's click
      if (ev.button === 2 && ev.pointerType === "mouse") {
        turning = { x: ev.clientX, id: ev.pointerId };
        this._pendingTurn = 0;
        el.setPointerCapture?.(ev.pointerId);
        return;
      }
      if (ev.button !== 0 && ev.pointerType === "mouse") return;
      pointers.set(ev.pointerId, [ev.clientX, ev.clientY]);
      this.dragMoved = false;
      this._downAt = [ev.clientX, ev.clientY];
      last = [ev.clientX, ev.clientY];
      if (pointers.size === 2) {
        const [p1, p2] = [...pointers.values()];
        pinch = { d: Math.hypot(p1[0] - p2[0], p1[1] - p2[1]), a: twist(p1, p2) };
        this._pendingTurn = 0;
      }
    });
    el.addEventListener("pointermove", (ev) => {
      if (turning && ev.pointerId === turning.id) {
        this._dragTurn((ev.clientX - turning.x) * TURN_PER_PX);
        turning.x = ev.clientX;
        return;
      }
      if (!pointers.has(ev.pointerId)) return;
      pointers.set(ev.pointerId, [ev.clientX, ev.clientY]);
      if (pointers.size === 2 && pinch) {
        const [p1, p2] = [...pointers.values()];
        const d = Math.hypot(p1[0] - p2[0], p1[1] - p2[1]);
        const [mx, my] = this.clientToMap((p1[0] + p2[0]) / 2, (p1[1] + p2[1]) / 2);
        if (pinch.d > 0) this.zoom(d / pinch.d, mx, my);
        pinch.d = d;
        const a = twist(p1, p2); // two fingers turning: the camera turns with them
        const da = ((a - pinch.a + 540) % 360) - 180;
        if (Math.abs(da) > 0.5) {
          this._dragTurn(da);
          pinch.a = a;
        }
        this.dragMoved = true;
        return;
      }
      if (Math.hypot(ev.clientX - this._downAt[0], ev.clientY - this._downAt[1]) > 6) this.dragMoved = true;
      if (this.dragMoved) {
        const k = this._unitsPerPixel();
        this.view.x -= (ev.clientX - last[0]) * k;
        this.view.y -= (ev.clientY - last[1]) * k;
        this._apply();
        if (!el.hasPointerCapture(ev.pointerId)) el.setPointerCapture(ev.pointerId);
      }
      last = [ev.clientX, ev.clientY];
    });
    const up = (ev) => {
      if (turning && ev.pointerId === turning.id) turning = null;
      pointers.delete(ev.pointerId);
      if (pointers.size < 2) pinch = null;
    };
    el.addEventListener("pointerup", up);
    el.addEventListener("pointercancel", up);
    // a drag must not end in a click on a cell
    el.addEventListener(
      "click",
      (ev) => {
        if (this.dragMoved) {
          ev.stopPropagation();
          ev.preventDefault();
          this.dragMoved = false;
        }
      },
      true,
    );
  }
}
