// Line charts in SVG: Black's win rate and lead along a game, players' Elo along a league.
// Ticks fall on round numbers, and the legend is a list below the plot, never on its lines.

import { svg } from "./board.js";

const WIDTH = 480;
const HEIGHT = 180;
const PAD = { left: 44, right: 12, top: 10, bottom: 22 };
// Twenty colours that tell apart at a glance (Tableau's twenty, darker first): a league of up
// to twenty players gives each its own; past that the lines are dashed as well.
export const PALETTE = [
  "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f",
  "#bcbd22", "#393b79", "#843c39", "#637939", "#7b4173", "#e7969c", "#9edae5", "#c49c94", "#f7b6d2",
  "#c7c7c7", "#dbdb8d",
];

/** Round tick values covering [low, high], about `count` of them (1, 2 or 5 times a power of 10). */
export function niceTicks(low, high, count = 4) {
  if (!(high > low)) return [low];
  const raw = (high - low) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const ticks = [];
  for (let t = Math.floor(low / step) * step; t <= high + step * 1e-9; t += step) ticks.push(Math.round(t / step) * step);
  return ticks.filter((t) => t >= low - step * 1e-9);
}

/**
 * Draw line series into `parent` (an element whose content is replaced).
 * @param {HTMLElement} parent
 * @param {{series: {name: string, color?: string, values: (number|null)[], xs?: number[],
 *                   dots?: boolean, faint?: boolean}[],
 *          yMin?: number, yMax?: number, xMax?: number, percent?: boolean, midline?: number,
 *          cursor?: number, legend?: boolean, onPick?: (x: number) => void, unit?: string}} options
 *   values are drawn at x = xs[i] (default i), null ones left out; `dots` draws a dot at each
 *   value, `faint` draws the series light; cursor marks an x; without yMin/yMax the y range is
 *   the values' widened to round ticks.
 */
export function lineChart(parent, options) {
  const { series, percent = false, midline = null, cursor = null, legend = false, onPick = null, unit = "" } = options;
  const xsOf = (s) => s.xs || s.values.map((_, i) => i);
  const isKnown = (value) => value !== null && value !== undefined;
  const values = series.flatMap((s) => s.values.filter(isKnown));
  let yMin = options.yMin ?? Math.min(...values, midline ?? Infinity);
  let yMax = options.yMax ?? Math.max(...values, midline ?? -Infinity);
  if (!Number.isFinite(yMin) || !Number.isFinite(yMax)) [yMin, yMax] = [0, 1];
  if (yMax - yMin < 1e-9) [yMin, yMax] = [yMin - 1, yMax + 1];
  const yTicks = percent ? [0, 0.25, 0.5, 0.75, 1].filter((t) => t >= yMin && t <= yMax) : niceTicks(yMin, yMax);
  if (options.yMin === undefined) yMin = Math.min(yMin, yTicks[0]);
  if (options.yMax === undefined) yMax = Math.max(yMax, yTicks[yTicks.length - 1]);
  const xMax = Math.max(options.xMax ?? 1, ...series.flatMap(xsOf), 1);
  const x = (value) => PAD.left + (value / xMax) * (WIDTH - PAD.left - PAD.right);
  const y = (value) => HEIGHT - PAD.bottom - ((value - yMin) / (yMax - yMin || 1)) * (HEIGHT - PAD.top - PAD.bottom);
  const label = (value) => (percent ? `${Math.round(value * 100)}%` : `${Math.round(value)}${unit}`);

  parent.replaceChildren();
  const root = svg("svg", { class: "chart", viewBox: `0 0 ${WIDTH} ${HEIGHT}` }, parent);
  const axes = svg("g", { class: "axes" }, root);
  svg("rect", { x: PAD.left, y: PAD.top, width: WIDTH - PAD.left - PAD.right, height: HEIGHT - PAD.top - PAD.bottom }, axes);
  for (const value of yTicks) {
    svg("line", { class: "gridline", x1: x(0), x2: x(xMax), y1: y(value), y2: y(value) }, axes);
    svg("text", { class: "y-label", x: PAD.left - 4, y: y(value) }, axes).textContent = label(value);
  }
  for (const value of niceTicks(0, xMax, 5).filter((t) => t <= xMax && Number.isInteger(t)))
    svg("text", { class: "x-label", x: x(value), y: HEIGHT - 6 }, axes).textContent = String(value);
  if (midline !== null) svg("line", { class: "midline", x1: x(0), x2: x(xMax), y1: y(midline), y2: y(midline) }, axes);
  if (cursor !== null)
    svg("line", { class: "cursor", x1: x(cursor), x2: x(cursor), y1: PAD.top, y2: HEIGHT - PAD.bottom }, axes);

  const keys = [];
  series.forEach((s, i) => {
    const color = s.color || PALETTE[i % PALETTE.length];
    const dashed = !s.color && i >= PALETTE.length;
    const xs = xsOf(s);
    // One path through the known values (a win rate is known at the moves a player searched).
    const known = s.values.map((value, j) => [xs[j], value]).filter(([, value]) => isKnown(value));
    const d = known.map(([at, value], j) => `${j ? "L" : "M"}${x(at).toFixed(1)} ${y(value).toFixed(1)}`).join("");
    const kind = `line${s.faint ? " faint" : ""}${dashed ? " dashed" : ""}`;
    if (!s.dots || !s.faint) svg("path", { class: kind, d, stroke: color, "data-series": s.name }, root);
    if (s.dots) {
      const group = svg("g", { class: `dots${s.faint ? " faint" : ""}`, "data-series": s.name }, root);
      for (const [at, value] of known) svg("circle", { cx: x(at), cy: y(value), r: 2, fill: color }, group);
    } else if (known.length) {
      const [at, value] = known[known.length - 1];
      svg("circle", { class: "dot", cx: x(at), cy: y(value), r: 3, fill: color }, root);
    }
    keys.push([s.name, color, dashed, s.faint]);
  });

  if (legend) {
    const list = parent.appendChild(document.createElement("ul"));
    list.className = "chart-legend";
    for (const [name, color, dashed, faint] of keys) {
      const item = list.appendChild(document.createElement("li"));
      item.dataset.series = name;
      const swatch = item.appendChild(document.createElement("span"));
      swatch.className = `swatch${dashed ? " dashed" : ""}${faint ? " faint" : ""}`;
      swatch.style.borderColor = color;
      item.append(name);
    }
  }

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
