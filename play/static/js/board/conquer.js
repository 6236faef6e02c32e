// The Conquer board (docs/CONQUER.md): the W x H grid as SVG, both players' dots (dead ones hollow), the capture
// rings drawn as links between dots, sealed territory shaded in its owner's colour, open bases (empty rings) marked
// with faint dots, the last dot ringed. It knows no rule: the legal points and everything drawn come from the server.

import { PointCursor } from "./cursor.js";

const SVG = "http://www.w3.org/2000/svg";

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
    this.svg = svg("svg", { class: "conquer-board", viewBox: `-1 -1 ${w + 1} ${h + 1}`, role: "img",
      "data-testid": "conquer-board", "aria-label": hooks.label || "" });
    this.territoryLayer = svg("g", { class: "cq-territory-layer" });
    const grid = svg("g", { class: "cq-grid" });
    for (let x = 0; x < w; x++) grid.append(svg("line", { x1: x, y1: 0, x2: x, y2: h - 1 }));
    for (let y = 0; y < h; y++) grid.append(svg("line", { x1: 0, y1: y, x2: w - 1, y2: y }));
    this.ringLayer = svg("g", { class: "cq-rings" });
    this.dotLayer = svg("g", { class: "cq-dots" });
    this.legalLayer = svg("g", { class: "cq-legal" });
    this.cursorLayer = svg("g", { class: "layer-cursor" });
    this.svg.append(this.territoryLayer, grid, this.ringLayer, this.dotLayer, this.legalLayer, this.cursorLayer);
    // keyboard play: the first arrow starts at the board's centre, Enter places a dot where that is legal
    const points = Array.from({ length: w * h }, (_, i) => [i % w, Math.floor(i / w)]);
    this.cursor = new PointCursor(this.cursorLayer, points, { radius: 0.42,
      start: () => Math.floor(h / 2) * w + Math.floor(w / 2),
      label: (i) => points[i].join(","),
      press: (i) => {
        const [x, y] = points[i];
        if (this.interactive && this.legal?.some(([lx, ly]) => lx === x && ly === y)) this.hooks.onPlace([x, y]);
      } });
    root.replaceChildren(this.svg);
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
      const spot = svg("circle", { class: "cq-spot", cx: x, cy: y, r: 0.45, "data-testid": "legal-point",
        "data-xy": `${x},${y}` });
      spot.addEventListener("click", () => this.hooks.onPlace([x, y]));
      this.legalLayer.append(spot);
    }
  }
}
