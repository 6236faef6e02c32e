// A keyboard cursor over a board's points (Alveole's cells, Conquer's grid points): an arrow key moves it to the
// nearest point that way, Enter or Space presses the point under it (issue 46: keyboard play without ~26 Tabs).
// Domain Wheel's board has its own (board/domain_wheel.js: cursorKey), which knows the hex rows.

import { svg } from "./hexmap.js";

const DIRECTIONS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

export class PointCursor {
  /**
   * @param {SVGElement} layer the group the cursor ring is drawn in (the board's topmost)
   * @param {number[][]} points [x, y] of every point, by index
   * @param {{radius: number, start: () => number, press: (i: number) => void, label: (i: number) => string}} hooks
   *   start(): where the first arrow puts the cursor; press(i): what Enter or Space does there; label(i): what a
   *   screen reader is told the point is
   */
  constructor(layer, points, hooks) {
    this.layer = layer;
    this.points = points;
    this.hooks = hooks;
    this.at = -1;
    this.column = null; // up and down keep to the column the cursor started in, like a text cursor
  }

  /** Handle a key; returns true when it was the cursor's (an arrow, or Enter/Space with the cursor shown). */
  key(ev) {
    if (ev.key === "Enter" || ev.key === " ") {
      if (this.at < 0) return false;
      this.hooks.press(this.at);
      return true;
    }
    const d = DIRECTIONS[ev.key];
    if (!d) return false;
    if (this.at < 0) this.at = Math.max(0, this.hooks.start());
    else this.at = this._next(d);
    this.draw();
    return true;
  }

  /** Return what a screen reader is told point i is. */
  label(i) {
    return this.hooks.label?.(i) ?? String(i);
  }

  /** The nearest point within 60 degrees of direction d, neighbours before points further along. */
  _next([dx, dy]) {
    const [x0, y0] = this.points[this.at];
    if (dx) this.column = null;
    else this.column ??= x0;
    let best = this.at;
    let bestScore = Infinity;
    this.points.forEach(([x, y], i) => {
      const along = (x - x0) * dx + (y - y0) * dy;
      const across = Math.abs((x - x0) * dy - (y - y0) * dx);
      if (along <= 1e-6 || across > along * 1.8) return;
      const score = along + 1.2 * across + (this.column === null ? 0 : 0.01 * Math.abs(x - this.column));
      if (score < bestScore) {
        bestScore = score;
        best = i;
      }
    });
    return best;
  }

  /** Draw the cursor ring (after the board redrew its layers too: the ring is in its own layer). */
  draw() {
    this.layer.replaceChildren();
    if (this.at < 0) return;
    const [cx, cy] = this.points[this.at];
    const g = svg("g", { class: "board-cursor", "data-testid": "board-cursor", "data-index": this.at }, this.layer);
    svg("circle", { cx, cy, r: this.hooks.radius, class: "cursor-under" }, g);
    svg("circle", { cx, cy, r: this.hooks.radius, class: "cursor-over" }, g);
  }
}
