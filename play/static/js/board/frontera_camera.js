// The Frontera map's camera (docs/FRONTERA.md, "Moving the map"): pan and zoom through the SVG's viewBox, so strokes
// and texts stay sharp at any zoom. The view is a centre (cx, cy) in map units and a scale k (map units per CSS
// pixel); the viewBox always has the element's own aspect, so the map fills the board area and one CSS pixel is one
// pixel everywhere on it.
//
//   wheel: zoom about the pointer    drag (mouse, one finger): pan    two fingers: pinch zoom about their middle
//   double click / double tap on the water: zoom in twice about it      W A S D, arrows: pan    + -: zoom    0: fit
//
// The view never leaves the map: zoomed out it shows the whole map (fit) at most, and a pan stops where the map's
// edge meets the board's. A press that moves more than DRAG_PX before it is released pans, and the click that ends
// it is swallowed, so a drag never plays; a tap still reaches the territory under it.

/** CSS px a press may move and still be a tap (a finger wobbles a few pixels). */
export const DRAG_PX = 8;
/** The largest zoom: a hex cell this many CSS px across. */
const MAX_CELL_PX = 120;
/** CSS px kept clear above and below the map when it is fitted: the map buttons' row sits there. */
export const BAR_PX = 44;
/** Zoom factor of one key press or button, and of a double tap. */
const STEP = 1.4;

export class MapCamera {
  /**
   * @param {SVGSVGElement} el the map's SVG
   * @param {{x: number, y: number, w: number, h: number}} box the map's extent in map units
   * @param {number} cell a hex cell's width in map units (bounds the zoom)
   * @param {(cam: MapCamera) => void} onChange called after each change of view (the labels' scale follows it)
   */
  constructor(el, box, cell, onChange = () => {}) {
    this.el = el;
    this.box = box;
    this.kMin = cell / MAX_CELL_PX;
    this.onChange = onChange;
    this.moved = false; // the current or last press was a drag or a pinch: its click is not a tap
    this.touch = false; // the last press was a finger's
    this.cx = box.x + box.w / 2;
    this.cy = box.y + box.h / 2;
    this.k = null; // fitted on the first apply(), once the element has a size
    this._bind();
    new ResizeObserver(() => this.apply()).observe(el);
  }

  /** Return the element's size in CSS px (1×1 before it is laid out, so no division by zero). */
  size() {
    const r = this.el.getBoundingClientRect();
    return [Math.max(1, r.width), Math.max(1, r.height)];
  }

  /** Return the scale that shows the whole map with BAR_PX clear above and below it. */
  fitScale() {
    const [w, h] = this.size();
    return Math.max(this.box.w / w, this.box.h / Math.max(1, h - 2 * BAR_PX));
  }

  /** Show the whole map. */
  fit() {
    this.k = this.fitScale();
    this.cx = this.box.x + this.box.w / 2;
    this.cy = this.box.y + this.box.h / 2;
    this.apply();
  }

  /** Return the map point under a client point. */
  toMap(clientX, clientY) {
    const r = this.el.getBoundingClientRect();
    return [this.cx + (clientX - r.left - r.width / 2) * this.k, this.cy + (clientY - r.top - r.height / 2) * this.k];
  }

  /** Zoom by `factor` (> 1 zooms in) keeping the map point under (clientX, clientY) in place; centre when omitted. */
  zoom(factor, clientX = null, clientY = null) {
    const r = this.el.getBoundingClientRect();
    const [px, py] = clientX === null ? [r.left + r.width / 2, r.top + r.height / 2] : [clientX, clientY];
    const [mx, my] = this.toMap(px, py);
    this.k = Math.min(this.fitScale(), Math.max(this.kMin, this.k / factor));
    this.cx = mx - (px - r.left - r.width / 2) * this.k;
    this.cy = my - (py - r.top - r.height / 2) * this.k;
    this.apply();
  }

  /** Move the map by (dx, dy) CSS px (a drag to the right moves the map right). */
  pan(dx, dy) {
    this.cx -= dx * this.k;
    this.cy -= dy * this.k;
    this.apply();
  }

  /** Keep the view inside the map, then set the viewBox and tell onChange. */
  apply() {
    const [w, h] = this.size();
    const fit = this.fitScale();
    if (this.k === null || this.k > fit) this.k = fit;
    const clamp = (c, lo, span, view) => (view >= span ? lo + span / 2 : Math.min(lo + span - view / 2, Math.max(lo + view / 2, c)));
    this.cx = clamp(this.cx, this.box.x, this.box.w, w * this.k);
    this.cy = clamp(this.cy, this.box.y, this.box.h, h * this.k);
    const [vw, vh] = [w * this.k, h * this.k];
    this.el.setAttribute("viewBox", [this.cx - vw / 2, this.cy - vh / 2, vw, vh].map((v) => v.toFixed(2)).join(" "));
    this.el.dataset.zoom = (fit / this.k).toFixed(3); // 1 = the whole map
    this.onChange(this);
  }

  /** Handle a camera key; return true when it was one (W A S D and the arrows pan, + and - zoom, 0 or R fits). */
  key(ev) {
    const [w, h] = this.size();
    const step = 0.15;
    const moves = { w: [0, step * h], arrowup: [0, step * h], s: [0, -step * h], arrowdown: [0, -step * h],
      a: [step * w, 0], arrowleft: [step * w, 0], d: [-step * w, 0], arrowright: [-step * w, 0] };
    const k = ev.key.toLowerCase();
    if (moves[k]) this.pan(...moves[k]);
    else if (k === "+" || k === "=") this.zoom(STEP);
    else if (k === "-" || k === "_") this.zoom(1 / STEP);
    else if (k === "0" || k === "r") this.fit();
    else return false;
    return true;
  }

  _bind() {
    const el = this.el;
    const pointers = new Map();
    let down = null; // where the single press started
    let pinch = null; // the two fingers' last distance and middle
    const two = () => {
      const [a, b] = [...pointers.values()];
      return { d: Math.hypot(a[0] - b[0], a[1] - b[1]), mid: [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2] };
    };
    el.addEventListener("wheel", (ev) => {
      ev.preventDefault(); // the page itself never scrolls or zooms under the map
      const px = ev.deltaMode === 1 ? ev.deltaY * 16 : ev.deltaY;
      this.zoom(Math.pow(1.002, -px), ev.clientX, ev.clientY);
    }, { passive: false });
    el.addEventListener("pointerdown", (ev) => {
      if (ev.pointerType === "mouse" && ev.button !== 0) return; // the right button is the deployment's undo
      this.touch = ev.pointerType === "touch";
      pointers.set(ev.pointerId, [ev.clientX, ev.clientY]);
      if (pointers.size === 1) {
        this.moved = false;
        down = [ev.clientX, ev.clientY];
      } else {
        this.moved = true; // a second finger: a pinch, never a tap
        pinch = two();
      }
    });
    el.addEventListener("pointermove", (ev) => {
      const last = pointers.get(ev.pointerId);
      if (!last) return;
      pointers.set(ev.pointerId, [ev.clientX, ev.clientY]);
      if (pointers.size >= 2 && pinch) {
        const now = two();
        if (pinch.d > 0) this.zoom(now.d / pinch.d, now.mid[0], now.mid[1]);
        this.pan(now.mid[0] - pinch.mid[0], now.mid[1] - pinch.mid[1]);
        pinch = now;
        return;
      }
      if (!this.moved && Math.hypot(ev.clientX - down[0], ev.clientY - down[1]) > DRAG_PX) {
        this.moved = true;
        el.setPointerCapture?.(ev.pointerId);
        this.pan(ev.clientX - down[0], ev.clientY - down[1]);
      } else if (this.moved) this.pan(ev.clientX - last[0], ev.clientY - last[1]);
    });
    const up = (ev) => {
      pointers.delete(ev.pointerId);
      if (pointers.size < 2) pinch = null;
      if (pointers.size === 1) down = [...pointers.values()][0]; // the finger left behind pans from where it is
    };
    el.addEventListener("pointerup", up);
    el.addEventListener("pointercancel", up);
    // the click that ends a drag or a pinch reaches no territory
    el.addEventListener("click", (ev) => {
      if (!this.moved) return;
      ev.stopPropagation();
      ev.preventDefault();
    }, true);
    el.addEventListener("dblclick", (ev) => {
      if (ev.target.closest?.(".fr-territory")) return; // on a territory, each click is a move
      ev.preventDefault();
      this.zoom(STEP * STEP, ev.clientX, ev.clientY);
    });
  }
}
