// The Alveole board (docs/ALVEOLE.md): the 61 pointy-top hexes of a side-5 board as SVG, both armies, the last
// move (and its capture), the chosen piece's legal destinations (a ring: plain move; a red ring: capture) and, at
// the end, the winning group. It knows no rule: movable pieces and destinations come from the server.
// Its camera is Domain Wheel's (board/hexmap.js): zoom, pan, and turns as Domain Wheel's, 15 degrees a Q/E press or
// freely by a right-button drag or two fingers twisting (rule 11.10); the pieces are discs, upright at any angle.

import { PointCursor } from "./cursor.js";
import { HexGrid, HexMap, axialToXY as centre } from "./hexmap.js";

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, v);
  return e;
}

function hexPoints(x, y, size = 0.98) {
  const pts = [];
  for (let k = 0; k < 6; k++) {
    const a = (Math.PI / 180) * (60 * k - 30);
    pts.push(`${(x + size * Math.cos(a)).toFixed(3)},${(y + size * Math.sin(a)).toFixed(3)}`);
  }
  return pts.join(" ");
}

const key = (qr) => `${qr[0]},${qr[1]}`;

export class AlveoleBoard {
  /**
   * @param {HTMLElement} root where the SVG goes
   * @param {{cells: number[][]}} layout the server's layout (cells in index order)
   * @param {{destinations: (qr) => Promise<{to: number[], capture: boolean}[]>, onMove: (from, to) => void,
   *   label: string}} hooks
   */
  constructor(root, layout, hooks) {
    this.layout = layout;
    this.hooks = hooks;
    this.index = new Map(layout.cells.map((qr, i) => [key(qr), i]));
    this.selected = null;
    this.dests = [];
    this.state = null;
    this.interactive = false;
    const grid = new HexGrid(layout.cells);
    const xs = grid.xy;
    root.replaceChildren();
    this.map = new HexMap(root, grid, { testid: "alveole-board", layers: ["cells", "pieces", "dest", "cursor"], pad: 0.3 });
    this.svg = this.map.root;
    this.svg.classList.add("alveole-board");
    this.svg.setAttribute("role", "img");
    this.svg.setAttribute("aria-label", hooks.label || "");
    const L = this.map.layers;
    [this.cellLayer, this.pieceLayer, this.destLayer] = [L.cells, L.pieces, L.dest];
    // keyboard play: the first arrow starts on one of your movable pieces, Enter does what a click there does
    this.cursor = new PointCursor(L.cursor, xs, { radius: 0.95, press: (i) => this._clickCell(i), camera: this.map,
      start: () => this.index.get(key(this.state?.movable?.[0] || [])) ?? Math.floor(xs.length / 2),
      label: (i) => this.cellEls[i]?.dataset.qr ?? String(i) });
    this.cellEls = layout.cells.map(([q, r], i) => {
      const [x, y] = centre(q, r);
      const poly = svg("polygon", { class: "alv-cell", points: hexPoints(x, y), "data-cell": i, "data-qr": `${q},${r}` });
      poly.addEventListener("click", () => this._clickCell(i));
      this.cellLayer.append(poly);
      return poly;
    });
  }

  /** Handle a camera key (Q/E turn, WASD pan, +/- zoom, R whole board); true when it was one. */
  cameraKey(ev) {
    return this.map.key(ev);
  }

  /** Draw a state view; ``mySeat`` is the seat this page plays (null for a spectator). */
  update(state, mySeat) {
    this.state = state;
    this.mySeat = mySeat;
    this.interactive = mySeat !== null && mySeat !== undefined && state.turn === mySeat && !state.over;
    const movable = new Set((this.interactive ? state.movable : []).map(key));
    const winning = new Set((state.winning_group || []).map(key));
    const last = state.last;
    this.cellEls.forEach((poly, i) => {
      const qr = this.layout.cells[i];
      poly.classList.toggle("last-from", Boolean(last) && key(last.from) === key(qr));
      poly.classList.toggle("last-to", Boolean(last) && key(last.to) === key(qr));
      poly.classList.toggle("last-capture", Boolean(last?.capture) && key(last.to) === key(qr));
    });
    this.pieceLayer.replaceChildren();
    state.board.forEach((v, i) => {
      if (!v) return;
      const [q, r] = this.layout.cells[i];
      const [x, y] = centre(q, r);
      const seat = v - 1;
      const qr = `${q},${r}`;
      const classes = ["alv-piece", `p${seat}`];
      if (movable.has(qr)) classes.push("movable");
      if (winning.has(qr)) classes.push("winning");
      if (this.selected === i) classes.push("selected");
      const piece = svg("circle", { class: classes.join(" "), cx: x.toFixed(3), cy: y.toFixed(3), r: 0.62,
        "data-cell": i, "data-qr": qr, "data-seat": seat,
        "data-testid": winning.has(qr) ? "winning-piece" : movable.has(qr) ? "movable-piece" : "piece" });
      piece.addEventListener("click", (ev) => {
        ev.stopPropagation();
        this._clickCell(i);
      });
      this.pieceLayer.append(piece);
    });
    if (!this.interactive) this._clearSelection();
    else this._drawDests();
  }

  _clearSelection() {
    this.selected = null;
    this.dests = [];
    this.destLayer.replaceChildren();
    delete this.svg.dataset.selected;
  }

  /** Handle a board cursor key (arrows, Enter, Space); true when it was one. */
  cursorKey(ev) {
    return this.cursor.key(ev);
  }

  async _clickCell(i) {
    if (!this.interactive) return;
    const qr = this.layout.cells[i];
    const dest = this.dests.find((d) => d.cell === i);
    if (dest && this.selected !== null) {
      const from = this.layout.cells[this.selected];
      this._clearSelection();
      this.hooks.onMove(from, qr);
      return;
    }
    const movable = (this.state?.movable || []).some((m) => key(m) === key(qr));
    if (!movable || this.selected === i) {
      this._clearSelection();
      this.update(this.state, this.mySeat);
      return;
    }
    this._clearSelection();
    this.selected = i;
    const asked = i;
    const found = await this.hooks.destinations(qr);
    if (this.selected !== asked) return; // another click came first
    this.dests = found.map((d) => ({ ...d, cell: this.index.get(key(d.to)) }));
    this.update(this.state, this.mySeat);
    this.svg.dataset.selected = key(qr); // the chosen piece's destinations are shown
  }

  _drawDests() {
    this.destLayer.replaceChildren();
    for (const d of this.dests) {
      const [q, r] = d.to;
      const [x, y] = centre(q, r);
      const kind = d.capture ? "capture" : "move";
      const g = svg("circle", { class: `alv-dest ${kind}`, cx: x.toFixed(3), cy: y.toFixed(3), r: 0.42,
        "data-testid": "destination", "data-qr": `${q},${r}`, "data-kind": kind, "data-cell": d.cell });
      g.addEventListener("click", (ev) => {
        ev.stopPropagation();
        this._clickCell(d.cell);
      });
      this.destLayer.append(g);
    }
  }
}
