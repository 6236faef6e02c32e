// The Conquer board (docs/CONQUER.md): the W x H grid as SVG, both players' dots (dead ones hollow), the capture
// rings drawn as links between dots, sealed territory shaded in its owner's colour, open bases (empty rings) marked
// with faint dots, the last dot ringed. It knows no rule: the legal points and everything drawn come from the server.
//
// Its camera is Domain Wheel's (board/hexmap.js: zoom, pan, pinch), turned in quarter turns only, so the grid stays
// a grid: Q/E, a right-button drag or two fingers twisting past 45 degrees turn it by 90 (rule 11.10's turn).
// Map units are grid steps: point (x, y) sits at (x, y), y down.
//
// A finger needs 32 CSS px (issue 46), and a 15 x 15 or 19 x 19 board on a phone draws its points 20-25 px apart:
// there a finger's tap on the board first zooms in about the tapped point (which stays under the finger) until the
// points are TAP_ZOOM px apart, and only a tap on a board drawn that big places a dot. A mouse click, a pen and the
// keyboard place at once at any size, so a desktop plays as fast as before.

import { PointCursor } from "./cursor.js";
import { HexMap } from "./hexmap.js";

const SVG = "http://www.w3.org/2000/svg";
/** The smallest tap target (CSS px): a finger's tap on points closer than this zooms in instead of placing. */
const TAP_TARGET = 32;
/** The distance between points (CSS px) a finger's zooming tap brings the board to: 32 px and a finger's slack. */
const TAP_ZOOM = 44;

function svg(tag, attrs = {}) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, v);
  return e;
}

export class ConquerBoard {
  /**
   * @param {HTMLElement} root where the SVG goes
   * @param {{width: number, height: number}} layout the server's layout
   * @param {{onPlace: (xy: number[]) => void, label: string}} hooks
   */
  constructor(root, layout, hooks) {
    this.layout = layout;
    this.hooks = hooks;
    const { width: w, height: h } = layout;
    const points = Array.from({ length: w * h }, (_, i) => [i % w, Math.floor(i / w)]);
    root.replaceChildren();
    const bounds = { minX: -0.5, maxX: w - 0.5, minY: -0.5, maxY: h - 0.5 };
    this.map = new HexMap(root, { bounds, xy: points }, { testid: "conquer-board", pad: 0.5, turnStep: 90, snap: 90,
      layers: ["territory", "grid", "rings", "dots", "legal", "cursor"] });
    this.map.minW = 4; // a finger's zoom on a big board may come closer than Domain Wheel's 8 cells
    this.svg = this.map.root;
    this.svg.classList.add("conquer-board");
    this.svg.setAttribute("role", "img");
    this.svg.setAttribute("aria-label", hooks.label || "");
    const L = this.map.layers;
    [this.territoryLayer, this.ringLayer, this.dotLayer, this.legalLayer] = [L.territory, L.rings, L.dots, L.legal];
    L.grid.classList.add("cq-grid");
    for (let x = 0; x < w; x++) L.grid.append(svg("line", { x1: x, y1: 0, x2: x, y2: h - 1 }));
    for (let y = 0; y < h; y++) L.grid.append(svg("line", { x1: 0, y1: y, x2: w - 1, y2: y }));
    this.svg.addEventListener("click", (ev) => this._zoomingTap(ev), true); // before the points hear the tap
    // keyboard play: the first arrow starts at the board's centre, Enter places a dot where that is legal
    this.cursor = new PointCursor(L.cursor, points, { radius: 0.42, camera: this.map,
      start: () => Math.floor(h / 2) * w + Math.floor(w / 2),
      label: (i) => points[i].join(","),
      press: (i) => {
        const [x, y] = points[i];
        if (this.interactive && this.legal?.some(([lx, ly]) => lx === x && ly === y)) this.hooks.onPlace([x, y]);
      } });
  }

  /** A finger's tap on points drawn under TAP_TARGET px apart: zoom in about it, and let it place nothing. */
  _zoomingTap(ev) {
    if (ev.defaultPrevented || !this.interactive || this.map.lastPointer !== "touch") return; // a drag's end, a mouse
    const step = this.map.unitPx();
    if (step >= TAP_TARGET) return;
    ev.stopPropagation();
    ev.preventDefault();
    const [ux, uy] = this.map.clientToMap(ev.clientX, ev.clientY);
    this.map.zoom(TAP_ZOOM / step, ux, uy);
  }

  /** Handle a camera key (Q/E quarter turns, WASD pan, +/- zoom, R whole board); true when it was one. */
  cameraKey(ev) {
    return this.map.key(ev);
  }

  /** Handle a board cursor key (arrows, Enter, Space); true when it was one. */
  cursorKey(ev) {
    return this.cursor.key(ev);
  }

  /** Draw a state view; ``mySeat`` is the seat this page plays (null for a spectator). */
  update(state, mySeat) {
    const w = state.width;
    const interactive = mySeat !== null && mySeat !== undefined && state.turn === mySeat && !state.over;
    this.interactive = interactive;
    this.legal = state.legal;
    this.svg.dataset.interactive = String(interactive);
    this.territoryLayer.replaceChildren();
    state.owner.forEach((o, i) => {
      const x = i % w;
      const y = Math.floor(i / w);
      if (o) {
        this.territoryLayer.append(svg("rect", { class: `cq-territory c${o}`, x: x - 0.5, y: y - 0.5, width: 1, height: 1,
          "data-testid": "territory", "data-xy": `${x},${y}`, "data-owner": o }));
      } else if (state.bases[i] && !state.dots[i]) {
        this.territoryLayer.append(svg("circle", { class: `cq-base c${state.bases[i]}`, cx: x, cy: y, r: 0.14,
          "data-testid": "open-base", "data-xy": `${x},${y}` }));
      }
    });
    this.ringLayer.replaceChildren(...state.rings.map(([c, a, b]) => svg("line", { class: `cq-ring c${c}`,
      x1: a[0], y1: a[1], x2: b[0], y2: b[1], "data-testid": "ring-link" })));
    const last = state.last?.point ? `${state.last.point[0]},${state.last.point[1]}` : null;
    this.dotLayer.replaceChildren();
    state.dots.forEach((d, i) => {
      if (!d) return;
      const x = i % w;
      const y = Math.floor(i / w);
      const dead = Boolean(state.dead[i]);
      const xy = `${x},${y}`;
      this.dotLayer.append(svg("circle", { class: `cq-dot c${d}${dead ? " dead" : ""}${xy === last ? " last" : ""}`,
        cx: x, cy: y, r: 0.3, "data-testid": dead ? "dead-dot" : "dot", "data-xy": xy, "data-colour": d }));
    });
    this.legalLayer.replaceChildren();
    if (!interactive) return;
    for (const [x, y] of state.legal) {
      const spot = svg("circle", { class: "cq-spot", cx: x, cy: y, r: 0.5, "data-testid": "legal-point",
        "data-xy": `${x},${y}` });
      spot.addEventListener("click", () => this.hooks.onPlace([x, y]));
      this.legalLayer.append(spot);
    }
  }
}
