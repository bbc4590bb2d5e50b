// A heatmap's latency axis fits its data, at 1-2-5 bounds, a decade at least.
import { describe, expect, it } from "vitest";
import { type Heatmap, heatmapPixels } from "./heatmap";
import { heatmapRowAxis, latencyLabel } from "./heatmap-rows";

/** The server's rows: ten a decade from 10 µs to 100 s, upper bounds rounded to µs. */
const ROWS_US = Array.from({ length: 71 }, (_, k) => Math.round(10 ** (1 + k / 10)));

/** One column with `n` operations in each of `rows`. */
function counts(rows: number[], n = 5): number[][] {
  const column = ROWS_US.map(() => 0);
  for (const r of rows) column[r] = n;
  return [column];
}

describe("the heatmap's latency axis", () => {
  it("runs from the fastest row to the slowest, out to 1-2-5 latencies", () => {
    // Requests of 200 µs to 3.1 ms: rows 14 (200-251 µs) to 25 (2.5-3.2 ms).
    const axis = heatmapRowAxis(ROWS_US, counts([14, 20, 25]));
    expect([axis.from, axis.to]).toEqual([14, 27]);
    expect(axis.labels.map((l) => l.label)).toEqual(["200 µs", "500 µs", "1 ms", "2 ms", "5 ms"]);
    expect(axis.labels[0].at).toBe(0);
    expect(axis.labels[axis.labels.length - 1].at).toBe(1);
    // Each label sits at its bound's edge: 1 ms is the top of row 20, 7 rows up of 14.
    expect(axis.labels[2].at).toBeCloseTo(7 / 14, 9);
  });

  it("spans a decade at least", () => {
    // Everything between 25 and 32 µs.
    const axis = heatmapRowAxis(ROWS_US, counts([5]));
    expect([axis.from, axis.to]).toEqual([1, 10]);
    expect(axis.labels.map((l) => l.label)).toEqual(["10 µs", "20 µs", "50 µs", "100 µs"]);
  });

  it("keeps the first and last rows, which hold everything faster and slower", () => {
    const axis = heatmapRowAxis(ROWS_US, counts([0, 70]));
    expect([axis.from, axis.to]).toEqual([0, 70]);
    // Eight decades: labelled at decades only.
    expect(axis.labels.map((l) => l.label)).toEqual(["10 µs", "100 µs", "1 ms", "10 ms", "100 ms", "1 s", "10 s", "100 s"]);
  });

  it("shows every row of an empty heatmap", () => {
    const axis = heatmapRowAxis(ROWS_US, [ROWS_US.map(() => 0)]);
    expect([axis.from, axis.to]).toEqual([0, 70]);
  });

  it("draws only the rows shown, the slowest at the top", () => {
    const h = { op: "put", rows_us: ROWS_US, merged: 1, spans_s: [[0, 1]], counts: counts([14, 25]), max_count: 5, phases: [] } as Heatmap;
    const { height, data, width } = heatmapPixels(h, 0, 1, 1, [14, 27]);
    expect(height).toBe(14);
    const alpha = (yFromTop: number) => data[(yFromTop * width) * 4 + 3];
    expect(alpha(13)).toBe(255); // row 14 at the bottom
    expect(alpha(2)).toBe(255); // row 25, two under the top (27)
    expect(alpha(0)).toBe(0);
  });

  it("names latencies in the unit that reads best", () => {
    expect(latencyLabel(500)).toBe("500 µs");
    expect(latencyLabel(2000)).toBe("2 ms");
    expect(latencyLabel(10_000_000)).toBe("10 s");
  });
});
