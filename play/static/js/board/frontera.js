// The Frontera map (docs/FRONTERA.md): territories drawn as unions of pointy-top hex cells, region borders thick,
// region names over the terrain, a fully held region outlined in its owner's colour, sea links dotted between
// capitals, army counts at the capitals. Fogged territories (owner -2) show their names only. It knows no rule:
// what is lit, selected or pointed at comes from ui/frontera.js.
//
// The camera (board/frontera_camera.js) pans and zooms; the armies and names keep a readable size on screen as the map
// zooms out (a scale on each label about its capital), and the names hide when the territories are too small for them.
//
// Cell centres: x = s·√3·(q + r/2), y = s·1.5·r; corner k at angle 60k − 30° (y down). The edge towards each axial
// direction joins two corners: (1,0) 0-1, (0,1) 1-2, (-1,1) 2-3, (-1,0) 3-4, (0,-1) 4-5, (1,-1) 5-0.

import { t as text } from "../i18n.js";
import { MapCamera } from "./frontera_camera.js";

const SVG = "http://www.w3.org/2000/svg";
const S = 10;
const DIRS = [[1, 0, 0], [0, 1, 1], [-1, 1, 2], [-1, 0, 3], [0, -1, 4], [1, -1, 5]];
/** owner of a territory the viewer cannot see (frontera_env.view.UNKNOWN) */
export const UNKNOWN = -2;
/** The smallest tap target (CSS px, issue 46): a finger's tap on a territory drawn smaller zooms in on it instead. */
export const TAP_PX = 32;
/** The size (CSS px) a too-small territory is brought to by a tap. */
const TAP_ZOOM_PX = 48;
/** Map units per CSS px below which the labels keep their drawn size: the army count's 4.6-unit digits are 11 px. */
const LABEL_K = 0.42;
/**
 * Map units per CSS px above which the territory names hide (a cell under 13 px: the names would overlap); below it
 * every territory is at least a 32 px tap target (the narrowest is 43 units), so a map zoomed to be tapped is named.
 */
const NAME_K = 1.3;
/** Map units per CSS px below which the region names keep their drawn size (9 units: 10 px). */
const REGION_K = 0.9;

function svg(tag, attrs = {}) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, v);
  return e;
}

const centre = ([q, r]) => [S * Math.sqrt(3) * (q + r / 2), S * 1.5 * r];
function corner([q, r], k) {
  const [x, y] = centre([q, r]);
  const a = (Math.PI / 180) * (60 * k - 30);
  return [x + S * Math.cos(a), y + S * Math.sin(a)];
}
const pt = ([x, y]) => `${x.toFixed(2)},${y.toFixed(2)}`;

export class FronteraBoard {
  /**
   * @param {HTMLElement} root where the SVG goes
   * @param {object} layout the server's layout (territories with cells, regions, sea links)
   * @param {{onTerritory: (t: number, how: {all: boolean, alt: boolean}) => void, label: string}} hooks
   */
  constructor(root, layout, hooks) {
    this.layout = layout;
    this.hooks = hooks;
    const terr = layout.territories;
    const where = new Map();
    terr.forEach((t) => t.cells.forEach(([q, r]) => where.set(`${q},${r}`, t.id)));
    const xs = [];
    const ys = [];
    for (const t of terr) for (const c of t.cells) {
      const [x, y] = centre(c);
      xs.push(x);
      ys.push(y);
    }
    const pad = S * 1.5;
    const [x0, y0] = [Math.min(...xs) - pad, Math.min(...ys) - pad];
    this.svg = svg("svg", { class: "frontera-board", viewBox: `${x0} ${y0} ${Math.max(...xs) + pad - x0} ${Math.max(...ys) + pad - y0}`,
      role: "img", "data-testid": "frontera-board", "aria-label": hooks.label || "" });
    const cellsLayer = svg("g", { class: "fr-cells" });
    const inner = svg("g", { class: "fr-inner" });
    const borders = svg("g", { class: "fr-borders" });
    this.regionLayer = svg("g", { class: "fr-held" });
    const seaLayer = svg("g", { class: "fr-sea" });
    const labelLayer = svg("g", { class: "fr-region-names" });
    this.arrowLayer = svg("g", { class: "fr-arrows", "pointer-events": "none" });
    const countLayer = svg("g", { class: "fr-counts" });
    this.groups = [];
    this.counts = [];
    this.capitals = [];
    this.labels = [];
    const regionEdges = layout.regions.map(() => []);
    for (const t of terr) {
      const g = svg("g", { class: "fr-territory", "data-testid": "territory", "data-t": t.id, "data-region": t.region });
      for (const c of t.cells) {
        const capital = t.capital ? c[0] === t.capital[0] && c[1] === t.capital[1] : c === t.cells[0];
        g.append(svg("polygon", { points: [0, 1, 2, 3, 4, 5].map((k) => pt(corner(c, k))).join(" "),
          "data-capital": capital ? "" : null }));
        for (const [dq, dr, k] of DIRS) {
          const other = where.get(`${c[0] + dq},${c[1] + dr}`);
          if (other === t.id) continue;
          const line = [corner(c, k), corner(c, (k + 1) % 6)];
          const coast = other === undefined || terr[other].region !== t.region;
          if (coast) regionEdges[t.region].push(line);
          if (other === undefined || other > t.id) {  // each shared edge once
            (coast ? borders : inner).append(svg("line", { x1: line[0][0], y1: line[0][1], x2: line[1][0], y2: line[1][1] }));
          }
        }
      }
      this._bind(g, t.id);
      cellsLayer.append(g);
      this.groups.push(g);
      const cap = centre(t.capital || t.cells[0]);
      this.capitals.push(cap);
      // drawn about (0, 0) and placed by a transform, so a zoom can scale them about their capital (setZoom)
      const count = svg("g", { class: "fr-count", "data-testid": "army", "data-t": t.id });
      count.append(svg("circle", { cx: 0, cy: 0, r: 4.6 }), svg("text", { x: 0, y: 1.6 }));
      const name = svg("text", { class: "fr-name", "data-testid": "territory-name", x: 0, y: 7.6 });
      name.textContent = t.name;
      const label = svg("g", { class: "fr-label" });
      label.append(count, name);
      countLayer.append(label);
      this.counts.push(count);
      this.labels.push(label);
    }
    for (const [a, b] of layout.sea_links) {
      const [p, q] = [centre(terr[a].capital || terr[a].cells[0]), centre(terr[b].capital || terr[b].cells[0])];
      seaLayer.append(svg("line", { class: "fr-sea-link", "data-testid": "sea-link", x1: p[0], y1: p[1], x2: q[0], y2: q[1] }));
    }
    this.regionLabels = [];
    this.regionPaths = layout.regions.map((r, i) => {
      const d = regionEdges[i].map(([a, b]) => `M${pt(a)}L${pt(b)}`).join("");
      const path = svg("path", { class: "fr-region-line", d, "data-testid": "region-outline", "data-region": r.id });
      this.regionLayer.append(path);
      const cells = r.territories.flatMap((t) => terr[t].cells).map(centre);
      const [cx, cy] = [cells.reduce((s, c) => s + c[0], 0) / cells.length, cells.reduce((s, c) => s + c[1], 0) / cells.length];
      const label = svg("text", { class: "fr-region-name", x: 0, y: 0, "data-testid": "region-name" });
      label.textContent = r.name;
      this.regionLabels.push([label, cx, cy]);
      labelLayer.append(label);
      return path;
    });
    // the attack arrow's head, one per seat colour (the arrow is drawn in the attacker's colour)
    const defs = svg("defs");
    for (const seat of ["", 0, 1, 2, 3, 4, 5]) {
      const marker = svg("marker", { id: `fr-head${seat === "" ? "" : `-p${seat}`}`, viewBox: "0 0 10 10", refX: 8, refY: 5,
        markerWidth: 5, markerHeight: 5, orient: "auto-start-reverse" });
      marker.append(svg("path", { d: "M0,0L10,5L0,10z", class: `fr-arrow-head${seat === "" ? "" : ` p${seat}`}` }));
      defs.append(marker);
    }
    this.svg.append(defs, cellsLayer, inner, borders, seaLayer, this.regionLayer, labelLayer, this.arrowLayer, countLayer);
    const box = { x: x0, y: y0, w: Math.max(...xs) + pad - x0, h: Math.max(...ys) + pad - y0 };
    this.camera = new MapCamera(this.svg, box, S * Math.sqrt(3), (cam) => this.setZoom(cam.k));
    root.replaceChildren(this.svg, this._buttons());
    this.camera.apply();
  }

  /** Return the map's buttons: zoom in, zoom out, show the whole map (they sit in the board's top corner). */
  _buttons() {
    const button = (testid, sign, key, fn) => {
      const b = document.createElement("button");
      Object.assign(b, { type: "button", textContent: sign, title: text(key), onclick: fn });
      b.setAttribute("aria-label", text(key));
      Object.assign(b.dataset, { i18nTitle: key, i18nAria: key }); // a change of language reaches them
      b.dataset.testid = testid;
      return b;
    };
    const row = document.createElement("div");
    row.className = "fr-map-buttons";
    row.dataset.testid = "fr-map-buttons";
    row.append(button("fr-zoom-in", "+", "frontera.zoom_in", () => this.camera.zoom(1.4)),
      button("fr-zoom-out", "−", "frontera.zoom_out", () => this.camera.zoom(1 / 1.4)),
      button("fr-fit", "⤢", "frontera.fit_map", () => this.camera.fit()));
    return row;
  }

  /** Keep the labels readable at scale `k` (map units per CSS px): grow them as the map shrinks, hide small names. */
  setZoom(k) {
    const s = Math.max(1, k / LABEL_K);
    if (s !== this.labelScale) {
      this.labelScale = s;
      this.labels.forEach((g, i) => g.setAttribute("transform", `translate(${pt(this.capitals[i])}) scale(${s.toFixed(3)})`));
    }
    const r = Math.max(1, k / REGION_K);
    if (r !== this.regionScale) {
      this.regionScale = r;
      this.regionLabels.forEach(([g, x, y]) => g.setAttribute("transform", `translate(${pt([x, y])}) scale(${r.toFixed(3)})`));
    }
    this.svg.dataset.names = k > NAME_K ? "hidden" : "shown";
  }

  /**
   * Clicks (Shift: all), right clicks (alt) and long presses (all) on territory `t`; a finger's tap on a territory
   * drawn under TAP_PX zooms in on it instead, so the tap that plays always lands where the finger meant.
   */
  _bind(g, t) {
    let timer = null;
    let long = false;
    let touched = false; // the last press on this territory was a finger's
    g.addEventListener("click", (ev) => {
      if (long) return void (long = false);
      if (this.camera.touch && this._tooSmall(g)) return void this._zoomTo(g, ev);
      this.hooks.onTerritory(t, { all: ev.shiftKey, alt: false });
    });
    g.addEventListener("contextmenu", (ev) => {
      ev.preventDefault();
      // a phone's browser fires contextmenu at the end of a long press too: that press placed them all already, so
      // only a mouse's right button takes an army back (the rules page: "Deshacer" on a phone)
      if (touched) return;
      this.hooks.onTerritory(t, { all: ev.shiftKey, alt: true });
    });
    g.addEventListener("pointerdown", (ev) => {
      touched = ev.pointerType === "touch";
      if (ev.pointerType !== "touch") return;
      long = false;
      timer = setTimeout(() => {
        if (this.camera.moved || this._tooSmall(g)) return; // a drag or a pinch, or a territory to zoom in on first
        long = true;
        this.hooks.onTerritory(t, { all: true, alt: false });
      }, 550);
    });
    const cancel = () => clearTimeout(timer);
    g.addEventListener("pointerup", cancel);
    g.addEventListener("pointerleave", cancel);
  }

  /** Return whether territory group `g` is drawn smaller than a finger's tap target. */
  _tooSmall(g) {
    const r = g.getBoundingClientRect();
    return Math.min(r.width, r.height) < TAP_PX;
  }

  /** Zoom in about the tap `ev` until territory group `g` is TAP_ZOOM_PX across at its narrowest. */
  _zoomTo(g, ev) {
    const r = g.getBoundingClientRect();
    this.camera.zoom(TAP_ZOOM_PX / Math.max(1, Math.min(r.width, r.height)), ev.clientX, ev.clientY);
  }

  /** Show the whole map (the screens' "whole board" button and key R; the map's own ⤢ button and key 0). */
  overview() {
    this.camera.fit();
  }

  /** Draw a server view `v` (the screens' common call; the game screen then draws its marks with draw()). */
  update(v) {
    this.draw(v.state, {});
  }

  /**
   * Draw a view's board: owners, armies, held regions; `marks` = {selected, lit: [t], arrow: [from, to], arrowSeat}.
   * @param {object} st the view's engine state (owner, armies, region_owner, visible)
   */
  draw(st, marks = {}) {
    const lit = new Set(marks.lit || []);
    st.owner.forEach((o, t) => {
      const g = this.groups[t];
      const hidden = o === UNKNOWN;
      g.setAttribute("class", `fr-territory ${hidden ? "fog" : o >= 0 ? `p${o}` : "none"}${lit.has(t) ? " lit" : ""}`
        + `${marks.selected === t ? " selected" : ""}`);
      g.dataset.owner = String(o);
      const count = this.counts[t];
      count.style.display = hidden ? "none" : ""; // SVG elements have no `hidden`
      count.setAttribute("class", `fr-count${o >= 0 ? ` p${o}` : ""}`);
      count.dataset.armies = hidden ? "" : String(st.armies[t]);
      count.querySelector("text").textContent = hidden ? "" : String(st.armies[t]);
    });
    this.regionPaths.forEach((path, r) => {
      const o = st.region_owner[r];
      path.setAttribute("class", `fr-region-line${o >= 0 ? ` held p${o}` : ""}`);
      path.dataset.owner = String(o);
      // a region held whole shows it by its outline and its name in the holder's colour (the rules page, "Refuerzos")
      const label = this.regionLabels[r][0];
      label.setAttribute("class", `fr-region-name${o >= 0 ? ` held p${o}` : ""}`);
      label.dataset.owner = String(o);
    });
    this.arrowLayer.replaceChildren();
    if (marks.arrow) {
      const [a, b] = marks.arrow.map((t) => this.capitals[t]);
      const seat = marks.arrowSeat >= 0 ? ` p${marks.arrowSeat}` : "";
      this.arrowLayer.append(svg("line", { class: `fr-arrow${seat}`, "data-testid": "attack-arrow", "data-seat": marks.arrowSeat ?? "",
        x1: a[0], y1: a[1], x2: b[0], y2: b[1], "marker-end": `url(#fr-head${seat.replace(" ", "-")})` }));
    }
    const hit = marks.arrow ? marks.arrow[1] : marks.defending;
    if (hit !== undefined && hit !== null) this.groups[hit].classList.add("defending");
  }
}
