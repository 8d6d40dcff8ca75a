// Line charts in SVG: Black's win rate along a game, players' Elo along a league.

import { svg } from "./board.js";

const WIDTH = 480;
const HEIGHT = 180;
const PAD = { left: 44, right: 10, top: 10, bottom: 22 };
const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f"];

/**
 * Draw line series into `parent` (an element whose content is replaced).
 * @param {HTMLElement} parent
 * @param {{series: {name: string, color?: string, values: (number|null)[], xs?: number[]}[],
 *          yMin?: number, yMax?: number, xMax?: number, percent?: boolean, midline?: number,
 *          cursor?: number, legend?: boolean, onPick?: (x: number) => void}} options
 *   values are drawn at x = xs[i] (default i), null ones left out; cursor marks an x.
 */
export function lineChart(parent, options) {
  const { series, percent = false, midline = null, cursor = null, legend = false, onPick = null } = options;
  const xsOf = (s) => s.xs || s.values.map((_, i) => i);
  const isKnown = (value) => value !== null && value !== undefined;
  const values = series.flatMap((s) => s.values.filter(isKnown));
  const yMin = options.yMin ?? Math.min(...values, 0);
  const yMax = options.yMax ?? Math.max(...values, 1);
  const xMax = Math.max(options.xMax ?? 1, ...series.flatMap(xsOf), 1);
  const x = (value) => PAD.left + (value / xMax) * (WIDTH - PAD.left - PAD.right);
  const y = (value) => HEIGHT - PAD.bottom - ((value - yMin) / (yMax - yMin || 1)) * (HEIGHT - PAD.top - PAD.bottom);
  const label = (value) => (percent ? `${Math.round(value * 100)}%` : String(Math.round(value)));

  parent.replaceChildren();
  const root = svg("svg", { class: "chart", viewBox: `0 0 ${WIDTH} ${HEIGHT}` }, parent);
  const axes = svg("g", { class: "axes" }, root);
  svg("rect", { x: PAD.left, y: PAD.top, width: WIDTH - PAD.left - PAD.right, height: HEIGHT - PAD.top - PAD.bottom }, axes);
  for (const value of [yMin, (yMin + yMax) / 2, yMax])
    svg("text", { class: "y-label", x: PAD.left - 4, y: y(value) }, axes).textContent = label(value);
  for (const value of [0, xMax])
    svg("text", { class: "x-label", x: x(value), y: HEIGHT - 6 }, axes).textContent = String(value);
  if (midline !== null) svg("line", { class: "midline", x1: x(0), x2: x(xMax), y1: y(midline), y2: y(midline) }, axes);
  if (cursor !== null)
    svg("line", { class: "cursor", x1: x(cursor), x2: x(cursor), y1: PAD.top, y2: HEIGHT - PAD.bottom }, axes);

  series.forEach((s, i) => {
    const color = s.color || PALETTE[i % PALETTE.length];
    const xs = xsOf(s);
    // One path through the known values (a win rate is known at the moves a player searched).
    const known = s.values.map((value, j) => [xs[j], value]).filter(([, value]) => isKnown(value));
    const d = known.map(([at, value], j) => `${j ? "L" : "M"}${x(at).toFixed(1)} ${y(value).toFixed(1)}`).join("");
    svg("path", { class: "line", d, stroke: color, "data-series": s.name }, root);
    if (known.length) {
      const [at, value] = known[known.length - 1];
      svg("circle", { class: "dot", cx: x(at), cy: y(value), r: 3, fill: color }, root);
    }
    if (legend) {
      const row = svg("g", { class: "legend" }, root);
      const ly = PAD.top + 12 + 13 * i;
      svg("line", { x1: PAD.left + 8, x2: PAD.left + 22, y1: ly, y2: ly, stroke: color }, row);
      svg("text", { x: PAD.left + 26, y: ly }, row).textContent = s.name;
    }
  });

  if (onPick) {
    root.classList.add("pickable");
    root.addEventListener("click", (event) => {
      const box = root.getBoundingClientRect();
      const at = ((event.clientX - box.left) / box.width) * WIDTH;
      const value = Math.round(((at - PAD.left) / (WIDTH - PAD.left - PAD.right)) * xMax);
      onPick(Math.min(Math.max(value, 0), xMax));
    });
  }
  return root;
}
