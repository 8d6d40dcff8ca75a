// A Go board drawn in SVG: wood, lines, star points, coordinates, stones and the marks of
// analysis. It draws what it is given (the server decides every rule) and tells its owner
// which point was clicked. Points are numbered as go_env numbers them: row 0 is the top
// row, point = row * size + column, size * size is a pass.

export const COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"; // GTP's columns: no I
const SVG = "http://www.w3.org/2000/svg";
const COLORS = { 1: "black", 2: "white" };

/** The GTP vertex of a point ("D4"), or "pass". */
export function vertexName(point, size) {
  if (point === size * size) return "pass";
  return COLUMNS[point % size] + (size - Math.floor(point / size));
}

/** The point of a GTP vertex ("D4" -> row * size + column), size * size for "pass". */
export function pointOf(vertex, size) {
  if (vertex.toLowerCase() === "pass") return size * size;
  const column = COLUMNS.indexOf(vertex[0].toUpperCase());
  return (size - Number(vertex.slice(1))) * size + column;
}

/** A new SVG element with attributes, appended to parent when one is given. */
export function svg(tag, attributes = {}, parent = null) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  if (parent) parent.appendChild(element);
  return element;
}

/** The star points of a board, as [row, column] pairs: the one rule every board of the page
 *  draws by, as Sabaki and OGS draw them. Four corner points on the third line (the fourth
 *  from 13x13 up), the centre of an odd board, and the four side points from 15x15 up: five
 *  on 9x9 and 13x13, nine on 19x19; below 9x9 the centre alone. */
export function starPoints(size) {
  const middle = (size - 1) / 2;
  const odd = size % 2 === 1;
  if (size < 9) return odd ? [[middle, middle]] : [];
  const near = size >= 13 ? 3 : 2;
  const far = size - 1 - near;
  const points = [[near, near], [near, far], [far, near], [far, far]];
  if (odd) points.push([middle, middle]);
  if (odd && size >= 15) points.push([near, middle], [middle, near], [middle, far], [far, middle]);
  return points;
}

function shortCount(n) {
  return n >= 1000 ? `${(n / 1000).toFixed(n >= 10000 ? 0 : 1)}k` : String(n);
}

let boards = 0; // gives each board's gradients ids of its own

export class Board {
  /**
   * @param {HTMLElement} parent where the board goes
   * @param {{onClick?: (vertex: string) => void, coordinates?: boolean}} options
   */
  constructor(parent, { onClick = null, coordinates = true } = {}) {
    this.id = ++boards;
    this.onClick = onClick;
    this.coordinates = coordinates;
    this.root = svg("svg", { class: "board", role: "img" }, parent);
    this.size = 0;
    this.view = {};
    this.hovered = null; // the vertex under the pointer
  }

  /** Draw a position. `view` fields (all optional but `board`):
   *  board: int[N*N] (0 empty, 1 black, 2 white); last: vertex or null;
   *  toPlay: "black"|"white" (colour of ghost stones and of a PV's first move);
   *  legal: Set of vertices a click may play (a ghost stone shows there on hover);
   *  dead: Set of vertices; owners: int[N*N] final owners;
   *  ownership: float[N*N] (-1 white .. +1 black); policy: float[N*N+1] (a heat map);
   *  candidates: [{move, visits, winrate, prior, pv}] best first;
   *  quality: Map vertex -> 0..5, a dot of that move-quality colour on the stone there
   *  (KaTrain's colours, 0 the best); hint: a vertex ringed as the best move. */
  draw(view) {
    const size = Math.round(Math.sqrt(view.board.length));
    if (size !== this.size) this.build(size);
    this.view = view;
    this.clearHover();
    for (const layer of ["heat", "stones", "marks", "candidates"]) this.layers[layer].replaceChildren();
    const dead = view.dead || new Set();
    view.board.forEach((color, point) => {
      const vertex = vertexName(point, size);
      this.hits[point].dataset.color = COLORS[color] || "";
      this.hits[point].toggleAttribute("data-legal", Boolean(view.legal?.has(vertex)));
      if (color) this.stone(this.layers.stones, point, COLORS[color], dead.has(vertex) ? "dead" : "");
    });
    if (view.owners) this.shadeOwners(view.owners, view.board, dead);
    for (const vertex of dead) this.cross(pointOf(vertex, size)); // over the owner's square
    if (view.ownership) this.shadeOwnership(view.ownership);
    if (view.policy) this.heatMap(view.policy);
    for (const [vertex, quality] of view.quality || []) this.qualityDot(pointOf(vertex, size), quality);
    if (view.last && view.last !== "pass") this.lastMarker(pointOf(view.last, size), view.board);
    if (view.hint && view.hint !== "pass") this.hintMarker(pointOf(view.hint, size));
    if (view.candidates?.length) this.drawCandidates(view.candidates);
    if (this.hovered) this.hover(this.hovered); // what the pointer rests on, in the new position
  }

  build(size) {
    this.size = size;
    this.hovered = null;
    const margin = this.coordinates ? 1.2 : 0.6; // room for the labels beside the edge stones
    const extent = size - 1 + 2 * margin;
    this.margin = margin;
    this.root.replaceChildren();
    this.root.setAttribute("viewBox", `0 0 ${extent} ${extent}`);
    const defs = svg("defs", {}, this.root);
    for (const [color, inner, outer] of [["black", "#666", "#111"], ["white", "#fff", "#ccc"]]) {
      const gradient = svg("radialGradient", { id: `stone-${color}-${this.id}`, cx: 0.35, cy: 0.35, r: 0.7 }, defs);
      svg("stop", { offset: "0%", "stop-color": inner }, gradient);
      svg("stop", { offset: "100%", "stop-color": outer }, gradient);
    }
    svg("rect", { class: "wood", x: 0, y: 0, width: extent, height: extent, rx: 0.15 }, this.root);
    const grid = svg("g", { class: "grid" }, this.root);
    const [low, high] = [margin, margin + size - 1];
    for (let i = 0; i < size; i++) {
      const at = margin + i;
      svg("line", { x1: low, y1: at, x2: high, y2: at }, grid);
      svg("line", { x1: at, y1: low, x2: at, y2: high }, grid);
    }
    for (const [row, column] of starPoints(size))
      svg("circle", { class: "star", cx: margin + column, cy: margin + row, r: 0.09 }, grid);
    if (this.coordinates) {
      const labels = svg("g", { class: "coordinates" }, this.root);
      for (let i = 0; i < size; i++) {
        const at = margin + i;
        for (const y of [0.45, extent - 0.45]) svg("text", { x: at, y }, labels).textContent = COLUMNS[i];
        for (const x of [0.45, extent - 0.45]) svg("text", { x, y: at }, labels).textContent = String(size - i);
      }
    }
    this.layers = {};
    for (const name of ["heat", "stones", "marks", "candidates", "hover"])
      this.layers[name] = svg("g", { class: name }, this.root);
    const hits = svg("g", { class: "hits" }, this.root);
    this.hits = [];
    for (let point = 0; point < size * size; point++) {
      const [x, y] = this.xy(point);
      const vertex = vertexName(point, size);
      const hit = svg("rect", { x: x - 0.5, y: y - 0.5, width: 1, height: 1, "data-vertex": vertex }, hits);
      hit.addEventListener("pointerenter", () => {
        this.hovered = vertex;
        this.hover(vertex);
      });
      hit.addEventListener("pointerleave", () => {
        this.hovered = null;
        this.clearHover();
      });
      hit.addEventListener("click", () => this.onClick?.(vertex));
      this.hits.push(hit);
    }
  }

  xy(point) {
    return [this.margin + (point % this.size), this.margin + Math.floor(point / this.size)];
  }

  stone(layer, point, color, extra = "") {
    const [cx, cy] = this.xy(point);
    const fill = `url(#stone-${color}-${this.id})`;
    return svg("circle", { class: `stone ${color} ${extra}`.trim(), cx, cy, r: 0.47, fill }, layer);
  }

  square(layer, point, side, attributes) {
    const [x, y] = this.xy(point);
    return svg("rect", { x: x - side / 2, y: y - side / 2, width: side, height: side, ...attributes }, layer);
  }

  cross(point) {
    const [x, y] = this.xy(point);
    const d = 0.2;
    const path = `M${x - d} ${y - d}L${x + d} ${y + d}M${x + d} ${y - d}L${x - d} ${y + d}`;
    svg("path", { class: "dead-mark", d: path }, this.layers.marks);
  }

  lastMarker(point, board) {
    const [cx, cy] = this.xy(point);
    const on = COLORS[board[point]] || "empty";
    svg("circle", { class: `last-move on-${on}`, cx, cy, r: 0.2 }, this.layers.marks);
  }

  /** A move's quality as a small dot on its stone (``quality-0`` best .. ``quality-5`` worst). */
  qualityDot(point, quality) {
    const [cx, cy] = this.xy(point);
    const dot = svg("circle", { class: `quality quality-${quality}`, cx, cy, r: 0.14 }, this.layers.marks);
    dot.dataset.vertex = vertexName(point, this.size);
  }

  /** The hint: a ring on the point the player would play. */
  hintMarker(point) {
    const [cx, cy] = this.xy(point);
    const ring = svg("circle", { class: "hint", cx, cy, r: 0.4 }, this.layers.marks);
    ring.dataset.vertex = vertexName(point, this.size);
  }

  /** The final owners: a square on each point counted for a colour that holds no stone of it. */
  shadeOwners(owners, board, dead) {
    owners.forEach((owner, point) => {
      if (!owner || (board[point] === owner && !dead.has(vertexName(point, this.size)))) return;
      this.square(this.layers.marks, point, 0.4, { class: `territory ${COLORS[owner]}` });
    });
  }

  /** Ownership (-1 white .. +1 black) as squares over the points, as opaque as it is sure. */
  shadeOwnership(ownership) {
    ownership.forEach((value, point) => {
      if (Math.abs(value) < 0.05) return;
      const color = value > 0 ? "black" : "white";
      this.square(this.layers.marks, point, 0.5, { class: `ownership ${color}`, "fill-opacity": Math.abs(value) * 0.75 });
    });
  }

  /** The policy as a heat map: each point as red as its share of the most likely move. */
  heatMap(policy) {
    const points = policy.slice(0, this.size * this.size);
    const top = Math.max(...points, 1e-9);
    const labelled = new Set([...points.keys()].sort((a, b) => points[b] - points[a]).slice(0, 5));
    points.forEach((p, point) => {
      if (p <= 0) return;
      this.square(this.layers.heat, point, 0.96, { class: "heat", "fill-opacity": 0.85 * Math.sqrt(p / top) });
      if (labelled.has(point) && p >= 0.01) {
        const [x, y] = this.xy(point);
        svg("text", { class: "heat-label", x, y }, this.layers.candidates).textContent = `${Math.round(p * 100)}`;
      }
    });
  }

  drawCandidates(candidates) {
    const most = Math.max(...candidates.map((c) => c.visits), 1);
    candidates.forEach((candidate, rank) => {
      if (candidate.move === "pass") return;
      const point = pointOf(candidate.move, this.size);
      const [cx, cy] = this.xy(point);
      const kind = rank === 0 ? "candidate best" : "candidate";
      const group = svg("g", { class: kind, "data-candidate": candidate.move }, this.layers.candidates);
      const weight = candidate.visits ? candidate.visits / most : candidate.prior;
      svg("circle", { cx, cy, r: 0.44, "fill-opacity": 0.45 + 0.5 * weight }, group);
      const [top, bottom] = candidate.visits
        ? [`${(candidate.winrate * 100).toFixed(1)}`, shortCount(candidate.visits)]
        : [`${Math.round(candidate.prior * 100)}%`, ""];
      svg("text", { class: "winrate", x: cx, y: bottom ? cy - 0.1 : cy }, group).textContent = top;
      if (bottom) svg("text", { class: "visits", x: cx, y: cy + 0.2 }, group).textContent = bottom;
    });
  }

  /** Hovering a candidate shows its PV as numbered ghost stones; a legal point, a ghost stone. */
  hover(vertex) {
    this.clearHover();
    const { candidates, legal, toPlay } = this.view;
    const candidate = candidates?.find((c) => c.move === vertex);
    if (candidate) {
      this.layers.candidates.classList.add("hidden");
      let color = toPlay;
      candidate.pv.forEach((move, i) => {
        if (move !== "pass") {
          const point = pointOf(move, this.size);
          const [x, y] = this.xy(point);
          this.stone(this.layers.hover, point, color, "ghost pv");
          svg("text", { class: `pv-number on-${color}`, x, y }, this.layers.hover).textContent = String(i + 1);
        }
        color = color === "black" ? "white" : "black";
      });
    } else if (legal?.has(vertex) && toPlay) {
      this.stone(this.layers.hover, pointOf(vertex, this.size), toPlay, "ghost");
    }
  }

  clearHover() {
    this.layers?.hover.replaceChildren();
    this.layers?.candidates.classList.remove("hidden");
  }
}
