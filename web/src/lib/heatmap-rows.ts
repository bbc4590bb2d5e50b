// The latency rows a heatmap shows: from its fastest non-empty row to its slowest,
// widened so the axis begins and ends at a 1-2-5 latency and spans at least a decade,
// so a run whose requests all took 0.2-3 ms is not a thin band in 10 µs-100 s. The
// axis is labelled at 1-2-5 latencies, as every log axis is.
import { logTicks } from "./log-axis";

/** The shortest latency range shown, in rows (the server sends ten a decade). */
const MIN_ROWS = 10;

/** The rows shown (indices into `rows_us`, both included) and the axis's labels: where
 * (0 = bottom, 1 = top) and what. */
export interface HeatmapRowAxis {
  from: number;
  to: number;
  labels: Array<{ at: number; label: string }>;
}

/** The 1-2-5 latency a row bound stands for (µs), if it is one: the server's bounds are
 * rounded to whole µs (501 for 500), so within half a percent. */
function nice125(us: number): number | undefined {
  const k = Math.floor(Math.log10(us));
  for (const m of [1, 2, 5, 10]) {
    const v = m * 10 ** k;
    if (Math.abs(us / v - 1) < 0.005) return v;
  }
  return undefined;
}

/** `500 µs`, `2 ms`, `10 s`. */
export function latencyLabel(us: number): string {
  if (us >= 1_000_000) return `${us / 1_000_000} s`;
  if (us >= 1000) return `${us / 1000} ms`;
  return `${us} µs`;
}

/**
 * The rows of `counts` (`counts[column][row]`, rows bounded above by `rowsUs`) to show
 * and their labels (at most `maxLabels`: a dozen fit the heatmap's height). A row's
 * bound is the top edge of its pixel row; the axis's bottom edge is the bound of the row
 * under the first one shown (or the fastest row's bottom).
 */
export function heatmapRowAxis(rowsUs: number[], counts: number[][], maxLabels = 12): HeatmapRowAxis {
  const n = rowsUs.length;
  let lowest = n;
  let highest = -1;
  for (const column of counts) {
    column.forEach((c, row) => {
      if (c > 0) {
        lowest = Math.min(lowest, row);
        highest = Math.max(highest, row);
      }
    });
  }
  if (highest < 0) [lowest, highest] = [0, n - 1];
  // Edges are row indices: edge e is the top of row e; edge -1 the bottom of row 0.
  const isEdge = (e: number) => e >= 0 && e < n && nice125(rowsUs[e]) != null;
  const below = (e: number) => {
    for (let i = e - 1; i >= 0; i--) if (isEdge(i)) return i;
    return -1;
  };
  const above = (e: number) => {
    for (let i = e + 1; i < n; i++) if (isEdge(i)) return i;
    return n - 1;
  };
  let bottom = isEdge(lowest - 1) || lowest === 0 ? lowest - 1 : below(lowest - 1);
  let top = isEdge(highest) ? highest : above(highest);
  // At least a decade: up a step, then down a step, while either can move.
  for (let up = true; top - bottom < MIN_ROWS && (top < n - 1 || bottom > -1); up = !up) {
    if (up && top < n - 1) top = above(top);
    else if (!up && bottom > -1) bottom = below(bottom);
  }
  const edgeValue = (e: number) => (e >= 0 ? (nice125(rowsUs[e]) ?? rowsUs[e]) : rowsUs[0] ** 2 / rowsUs[Math.min(1, n - 1)]);
  const byValue = new Map<number, number>();
  for (let e = Math.max(bottom, 0); e <= top; e++) if (isEdge(e)) byValue.set(nice125(rowsUs[e])!, e);
  const labels = logTicks(edgeValue(bottom), edgeValue(top), maxLabels)
    .filter((v) => byValue.has(v))
    .map((v) => ({ at: (byValue.get(v)! - bottom) / (top - bottom), label: latencyLabel(v) }));
  return { from: bottom + 1, to: top, labels };
}
