// The compare page's judged changes in words: the real changes largest first (a change
// from 0 before any), only improved and regressed coloured, schedule lag marked as not
// judged, the rows of each view, and figures, changes and tails as the CLI prints them.
import { describe, expect, it } from "vitest";
import type { Change } from "../api/types";
import { fmtLatencyEstimate, fmtWithHalfWidth } from "./estimates";
import { fmtLatency, fmtRate } from "./format";
import { summaryRow } from "./test-rows";
import { changesInView, fmtChange, fmtEstimate, fmtFloor, fmtRatio, fmtSide, placeOf, realChanges, verdictClass, verdictWords } from "./verdicts";

function change(p: Partial<Change> & Pick<Change, "metric" | "verdict">): Change {
  return { section: "round", round: 1, phase: "write", op: "put", better: "higher", why: "", ...p };
}

const ratio = (value: number) => ({ value, low: value * 0.98, high: value * 1.02 });

describe("the changes beyond the noise", () => {
  const halved = change({ metric: "ops_per_sec", verdict: "regressed", ratio: ratio(0.5) });
  const grown = change({ metric: "p50", verdict: "regressed", ratio: ratio(1.8), better: "lower" });
  const small = change({ metric: "p99", verdict: "improved", ratio: ratio(0.9), better: "lower" });
  const appeared = change({ metric: "over_1s", verdict: "regressed", better: "lower", why: "from 0; the new run's interval excludes 0" });
  const wide = change({ metric: "p99.9", verdict: "inconclusive", ratio: ratio(3) });
  const alike = change({ metric: "mib_per_sec", verdict: "no_change", ratio: ratio(1.001) });
  const lagged = change({ metric: "p99", verdict: "lag", why: "mostly the client's schedule lag" });

  it("are only the improved and regressed ones, largest either way first, a change from 0 before any", () => {
    const real = realChanges([small, wide, grown, alike, halved, lagged, appeared]);
    // |ln 0.5| = 0.69 > |ln 1.8| = 0.59 > |ln 0.9| = 0.11: a halving outweighs +80 %.
    expect(real).toEqual([appeared, halved, grown, small]);
  });

  it("colours only improved and regressed; the rest is grey", () => {
    expect(verdictClass("improved")).toBe("better");
    expect(verdictClass("regressed")).toBe("worse");
    for (const v of ["no_change", "inconclusive", "lag"] as const) expect(verdictClass(v)).toBe("muted");
  });

  it("marks a percentile that was mostly schedule lag as not judged", () => {
    expect(verdictWords("lag")).toBe("not judged: mostly schedule lag");
    expect(verdictWords("no_change")).toBe("no change");
  });
});

describe("the rows of a view", () => {
  const fill = change({ section: "before", round: null, phase: "fill", metric: "ops_per_sec", verdict: "no_change" });
  const round2 = change({ round: 2, metric: "ops_per_sec", verdict: "inconclusive" });
  const together = change({ round: null, all_rounds: true, metric: "ops_per_sec", verdict: "improved" });

  it("shows each round on its own, or a round phase's rounds together, and the phases outside rounds in both", () => {
    expect(changesInView([fill, round2, together], "each")).toEqual([fill, round2]);
    expect(changesInView([fill, round2, together], "together")).toEqual([fill, together]);
  });

  it("names each place as the CLI does", () => {
    expect([fill, round2, together].map(placeOf)).toEqual(["before fill", "round 2 write", "write (all rounds)"]);
  });
});

describe("figures and changes in words", () => {
  it("writes a change with its interval, signed with a real minus", () => {
    expect(fmtChange({ ratio: { value: 0.549, low: 0.541, high: 0.556 }, why: "" })).toBe("−45.1 % (−45.9 % to −44.4 %)");
    expect(fmtRatio(6.35)).toBe("+535 %");
    expect(fmtRatio(0.99999)).toBe("+0.0 %");
    expect(fmtChange({ why: "from 0; the new run's interval excludes 0" })).toBe("from 0");
    expect(fmtChange({ why: "0 in both" })).toBe("0 in both");
    expect(fmtChange({ why: "base: 1 measured second; an interval needs at least 10" })).toBe("–");
  });

  it("writes a figure with its interval's half-width, or a latency with its ends", () => {
    expect(fmtEstimate("ops_per_sec", { value: 1367, low: 1337, high: 1397 })).toBe("1,367 ops/s ±2.2 %");
    expect(fmtWithHalfWidth({ value: 1367, low: 1367, high: 1367 }, fmtRate(1367))).toBe("1,367 ops/s");
    expect(fmtEstimate("p99", null)).toBe("–");
    expect(fmtLatencyEstimate({ value: 8800, low: 8000, high: 9800 })).toBe("8.80 ms (8.00–9.80)");
    expect(fmtLatencyEstimate({ value: 980, low: 850, high: 1200 })).toBe("980 µs (850 µs–1.20 ms)");
    expect(fmtFloor(0.02)).toBe("±2 %");
    // A sustainable rate with the bracket its search ended in.
    expect(fmtEstimate("sustainable_rate", { value: 1680, low: 1680, high: 1750 })).toBe("1,680 ops/s (1,680 ops/s–1,750 ops/s)");
  });

  it("shows a tail as a share and the operations it counts, its rounds added up together", () => {
    const rows = [1, 2].map((round) =>
      summaryRow({ round, phase: "write", op: "put", latency_us: { min: 1, mean: 2, p50: 100, p90: 200, p99: 1000, p999: 2000, max: 45_000_000, slower_than: [{ mark_us: 1_000_000, count: 8 }, { mark_us: 10_000_000, count: 8 }] } }),
    );
    const tail = change({ round: 2, metric: "over_1s", verdict: "regressed", better: "lower" });
    expect(fmtSide(tail, { value: 0.0008, low: 0.0004, high: 0.0012 }, rows)).toBe("0.080 % ±50.0 % (8 PUTs)");
    expect(fmtSide({ ...tail, round: null, all_rounds: true }, { value: 0.0008, low: 0.0008, high: 0.0008 }, rows)).toBe("0.080 % (16 PUTs)");
    // A place the rows do not have: the share alone.
    expect(fmtSide({ ...tail, phase: "read" }, { value: 0, low: 0, high: 0 }, rows)).toBe("0 %");
    // A side with too few seconds for an interval: the operations counted.
    expect(fmtSide(tail, null, rows)).toBe("8 PUTs");
  });

  it("shows a side with no interval by its row's own figure, without a ±", () => {
    const rows = [summaryRow({ round: 2, phase: "write", op: "put", ops_per_sec: 2109.4 })];
    const short = change({ round: 2, metric: "ops_per_sec", verdict: "inconclusive", why: "base: 1 measured second; an interval needs at least 10" });
    expect(fmtSide(short, null, rows)).toBe("2,109 ops/s");
    expect(fmtSide({ ...short, metric: "p99" }, null, rows)).toBe("1.00 ms");
    // Rounds together have no one row's figure; a round the run does not have, none either.
    expect(fmtSide({ ...short, round: null, all_rounds: true }, null, rows)).toBe("–");
    expect(fmtSide({ ...short, round: 3 }, null, rows)).toBe("–");
  });
});

describe("fmtEstimate", () => {
  it("gives an interval wider than its figure as its ends, not as a share", () => {
    expect(fmtEstimate("p99", { value: 6_700, low: 3_100, high: 5_000_000 })).toBe(`${fmtLatency(6_700)} (${fmtLatency(3_100)}–${fmtLatency(5_000_000)})`);
    expect(fmtEstimate("p99", { value: 10_000, low: 9_000, high: 11_000 })).toBe(`${fmtLatency(10_000)} ±10.0 %`);
  });
});
