// A latency heatmap as pixels: each column (a recorded interval, or merged ones) drawn
// where it really ran on the time axis, each latency row (ten a decade) a pixel row,
// coloured by the rate of operations in the cell (its count over the column's width,
// so a 1.2 s last interval or 2 s of merged ones compare with a second) on a log
// scale, so a handful of slow operations during a reshard stands out against
// thousands of fast ones. Drawn once into a canvas: a 2-hour run is a few thousand
// pixels wide, not half a million elements.
import type { Heatmap } from "../api/types";
import { HEATMAP_STOPS } from "./palette";

export type { Heatmap };

/** The colour of a cell with `count` operations when the fullest has `max`: empty cells
 * are clear; the rest go from pale yellow through orange to dark purple, on a log scale. */
export function cellColour(count: number, max: number): [number, number, number, number] {
  if (count <= 0 || max <= 0) return [0, 0, 0, 0];
  const t = max <= 1 ? 1 : Math.log1p(count) / Math.log1p(max);
  const stops = HEATMAP_STOPS;
  const x = Math.min(1, Math.max(0, t)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const f = x - i;
  const mix = (a: number, b: number) => Math.round(a + (b - a) * f);
  return [mix(stops[i][0], stops[i + 1][0]), mix(stops[i][1], stops[i + 1][1]), mix(stops[i][2], stops[i + 1][2]), 255];
}

/** Where the heatmap's columns begin and end (s from the run's start). */
export function heatmapExtent(h: Heatmap): [number, number] {
  if (!h.spans_s.length) return [0, 0];
  return [h.spans_s[0][0], h.spans_s[h.spans_s.length - 1][1]];
}

/** `span`, widened to what the heatmap measured if that goes further. */
export function widest(span: [number, number], h: Heatmap): [number, number] {
  const [start, end] = heatmapExtent(h);
  return [Math.min(span[0], start), Math.max(span[1], end)];
}

/** Operations per second in a cell: its count over its column's width. */
export function cellRate(h: Heatmap, column: number, row: number): number {
  const [start, end] = h.spans_s[column];
  return h.counts[column][row] / Math.max(end - start, 0.001);
}

/** The highest rate of any cell. */
export function maxRate(h: Heatmap): number {
  let max = 0;
  h.counts.forEach((column, c) => column.forEach((n, r) => n > 0 && (max = Math.max(max, cellRate(h, c, r)))));
  return max;
}

/** Pixel columns a heatmap is drawn in: enough that a second of a short run is many
 * of them, at most a few thousand. */
export function pixelWidth(h: Heatmap): number {
  return Math.min(4096, Math.max(600, h.counts.length * 4));
}

/**
 * The heatmap's pixels, RGBA, for the time axis [from, to] and the latency rows
 * [`rows[0]`, `rows[1]`] (all by default): each column's cells fill the pixel columns of
 * its span (at least one), where columns share a pixel the higher rate shows; the
 * fastest row at the bottom, no column: clear.
 */
export function heatmapPixels(
  h: Heatmap,
  from: number,
  to: number,
  width = pixelWidth(h),
  rows: [number, number] = [0, h.rows_us.length - 1],
): { width: number; height: number; data: Uint8ClampedArray<ArrayBuffer> } {
  const [first, last] = rows;
  const height = Math.max(0, last - first + 1);
  const rates = new Float64Array(width * height);
  const span = Math.max(to - from, 1e-9);
  const px = (t: number) => ((t - from) / span) * width;
  h.counts.forEach((column, c) => {
    const [start, end] = h.spans_s[c];
    const x0 = Math.max(0, Math.min(width - 1, Math.floor(px(start))));
    const x1 = Math.max(x0 + 1, Math.min(width, Math.round(px(end))));
    column.forEach((n, row) => {
      if (n <= 0 || row < first || row > last) return;
      const rate = cellRate(h, c, row);
      for (let x = x0; x < x1; x++) {
        const at = (last - row) * width + x;
        if (rate > rates[at]) rates[at] = rate;
      }
    });
  });
  const max = maxRate(h);
  const data = new Uint8ClampedArray(new ArrayBuffer(width * height * 4));
  rates.forEach((rate, i) => {
    if (rate <= 0) return;
    const [r, g, b, a] = cellColour(rate, max);
    data.set([r, g, b, a], i * 4);
  });
  return { width, height, data };
}

/** Operations in all cells. */
export function heatmapTotal(h: Heatmap): number {
  return h.counts.reduce((sum, column) => sum + column.reduce((a, b) => a + b, 0), 0);
}

/** Steps between time labels (s): the first that gives at most `max` labels is used. */
const TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];

/** Seconds from the run's start as an axis label: "45 s", "2 min", "1 min 30 s", "1 h 30 min". */
export function timeLabel(t: number): string {
  const s = Math.round(t);
  if (s < 60) return `${s} s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  return [h ? `${h} h` : "", m ? `${m} min` : "", rest ? `${rest} s` : ""].filter(Boolean).join(" ");
}

/** The end of a time axis that starts at 0 and must reach `end` (s): a round time just
 * past it (…, 25, 30, 40, 50, 60, 70 s, …; at most eight steps of the axis's ticks), at
 * least `min`. */
export function niceTimeEnd(end: number, min = 10): number {
  if (!(end > min)) return min;
  const step = TIME_STEPS.find((s) => Math.ceil(end / s) <= 8) ?? Math.ceil(end / 8 / 86400) * 86400;
  return Math.ceil(end / step) * step;
}

/** Labels on the time axis from `from` to `to` (s): where (0 = left, 1 = right) and what, at round steps. */
export function timeTicks(from: number, to: number, max = 8): Array<{ at: number; label: string }> {
  const span = to - from;
  if (!(span > 0)) return [];
  const step = TIME_STEPS.find((s) => Math.floor(span / s) + 1 <= max) ?? Math.ceil(span / (max - 1) / 86400) * 86400;
  const out: Array<{ at: number; label: string }> = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) {
    out.push({ at: (t - from) / span, label: timeLabel(t) });
  }
  return out;
}

/**
 * The row (0, 1, 2...) of each label placed at `xs` (0..1, in order), so that labels
 * closer than `minGap` to the one before them in a row go to the next row instead of
 * over it: a short phase's name is not hidden under the next one's.
 */
export function labelRows(xs: number[], minGap: number, rows = 3): number[] {
  const lastInRow: number[] = [];
  return xs.map((x) => {
    let row = lastInRow.findIndex((last) => x - last >= minGap);
    if (row < 0) row = lastInRow.length < rows ? lastInRow.length : lastInRow.indexOf(Math.min(...lastInRow));
    lastInRow[row] = x;
    return row;
  });
}
