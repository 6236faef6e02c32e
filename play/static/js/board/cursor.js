// A keyboard cursor over a board's points (Domain Wheel's and Alveole's cells, Conquer's grid points): an arrow key
// moves it to the nearest point that way, Enter or Space presses the point under it (issue 46: keyboard play without
// ~26 Tabs). On a hex board up and down zig-zag between the two cells above or below, keeping to the column.
// The arrows are the screen's: on a turned camera (Q/E, right-drag, two fingers) ArrowUp still moves the cursor
// towards the top of the screen, whatever way up the board is drawn.

import { svg } from "./hexmap.js";

const DIRECTIONS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

export class PointCursor {
  /**
   * @param {SVGElement} layer the group the cursor ring is drawn in (the board's topmost)
   * @param {number[][]} points [x, y] of every point, by index
   * @param {{radius: number, start: () => number, press: (i: number) => void, label: (i: number) => string,
   *   camera?: {angle: number, frame: Function}, mark?: (g: SVGElement, x: number, y: number, cls: string) => void}} hooks
   *   start(): where the first arrow puts the cursor; press(i): what Enter or Space does there; label(i): what a
   *   screen reader is told the point is; camera: the board's (board/hexmap.js), whose turn
   *   (degrees, clockwise on screen) the arrows follow and which pans to keep the cursor on screen; mark: draws
   *   one ring of the cursor's shape at (x, y) into g (default: a circle of `radius`)
   */
  constructor(layer, points, hooks) {
    this.layer = layer;
    this.points = points;
    this.hooks = hooks;
    this.at = -1;
    this.column = null; // up and down keep to the column the cursor started in, like a text cursor
    this.columnAngle = 0; // the camera's turn that column was taken under: a turn starts a new one
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
    const [x, y] = this.points[this.at];
    this.hooks.camera?.frame([x - 1.5, y - 1.5, x + 1.5, y + 1.5], 0); // a zoomed-in board pans to the cursor
    return true;
  }

  /** Return what a screen reader is told point i is. */
  label(i) {
    return this.hooks.label?.(i) ?? String(i);
  }

  /** Return the points as the screen shows them: turned by the camera's angle (directions alone matter). */
  _onScreen() {
    const deg = this.hooks.camera?.angle ?? 0;
    if (deg !== this.columnAngle) this.column = null;
    this.columnAngle = deg;
    if (!deg) return this.points;
    const [c, s] = [Math.cos((deg * Math.PI) / 180), Math.sin((deg * Math.PI) / 180)];
    return this.points.map(([x, y]) => [x * c - y * s, x * s + y * c]);
  }

  /** The nearest point within 60 degrees of screen direction d, neighbours before points further along. */
  _next([dx, dy]) {
    const points = this._onScreen();
    const [x0, y0] = points[this.at];
    if (dx) this.column = null;
    else this.column ??= x0;
    let best = this.at;
    let bestScore = Infinity;
    points.forEach(([x, y], i) => {
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
    const g = svg("g", { class: "board-cursor", "data-testid": "board-cursor", "data-cell": this.at }, this.layer);
    const circle = (parent, x, y, cls) => svg("circle", { cx: x, cy: y, r: this.hooks.radius, class: cls }, parent);
    const mark = this.hooks.mark ?? circle;
    for (const cls of ["cursor-under", "cursor-over"]) mark(g, cx, cy, cls);
  }
}
