// Largest-Triangle-Three-Buckets downsampling: keeps the shape of a long series (peaks
// and dips included) in a fixed number of points, so charts stay smooth for hour-long
// runs.

export function lttb<T>(data: T[], threshold: number, x: (d: T) => number, y: (d: T) => number): T[] {
  return lttbIndices(data, threshold, x, y).map((i) => data[i]);
}

/** The indices LTTB keeps, ascending. */
export function lttbIndices<T>(data: T[], threshold: number, x: (d: T) => number, y: (d: T) => number): number[] {
  const n = data.length;
  if (threshold >= n || threshold < 3) return data.map((_, i) => i);
  const out: number[] = [0];
  const every = (n - 2) / (threshold - 2);
  let a = 0;
  for (let i = 0; i < threshold - 2; i++) {
    const avgStart = Math.floor((i + 1) * every) + 1;
    const avgEnd = Math.min(Math.floor((i + 2) * every) + 1, n);
    let avgX = 0;
    let avgY = 0;
    for (let j = avgStart; j < avgEnd; j++) {
      avgX += x(data[j]);
      avgY += y(data[j]);
    }
    const len = Math.max(avgEnd - avgStart, 1);
    avgX /= len;
    avgY /= len;
    const rangeStart = Math.floor(i * every) + 1;
    const rangeEnd = Math.floor((i + 1) * every) + 1;
    const ax = x(data[a]);
    const ay = y(data[a]);
    let maxArea = -1;
    let next = rangeStart;
    for (let j = rangeStart; j < rangeEnd; j++) {
      const area = Math.abs((ax - avgX) * (y(data[j]) - ay) - (ax - x(data[j])) * (avgY - ay));
      if (area > maxArea) {
        maxArea = area;
        next = j;
      }
    }
    out.push(next);
    a = next;
  }
  out.push(n - 1);
  return out;
}

/**
 * Downsamples rows that carry several series (one chart, several lines): each series
 * gets its share of the budget, and a row is kept when any series needs it, so a spike
 * in p99 survives even when p50 is flat. Missing values count as 0. A pause's gap row
 * (`gap: 1`) is always kept, so no line is drawn across the pause.
 */
export function downsampleRows<T extends Record<string, unknown>>(rows: T[], max: number, xKey: string, yKeys: string[]): T[] {
  if (rows.length <= max || yKeys.length === 0) return rows;
  const share = Math.max(3, Math.floor(max / yKeys.length));
  const keep = new Set<number>();
  rows.forEach((r, i) => r.gap === 1 && keep.add(i));
  const x = (d: T) => Number(d[xKey]);
  for (const key of yKeys) {
    for (const i of lttbIndices(rows, share, x, (d) => Number(d[key] ?? 0) || 0)) keep.add(i);
  }
  return [...keep].sort((a, b) => a - b).map((i) => rows[i]);
}

/** Points drawn per series at most. */
export const MAX_POINTS = 1500;
