// Chart units fitted to their range, and how the rounds chart tells series apart.
import { describe, expect, it } from "vitest";
import { MIN_LIVE_SPAN_S, liveDomain } from "./live";
import { fmtMiBs, latencyClockText } from "./format";
import { type Heatmap, labelRows, niceTimeEnd, timeLabel, timeTicks, widest } from "./heatmap";
import { DASHES, OP_COLOURS, PERCENTILE_DASH } from "./palette";
import { METRICS, roundSeriesLooks } from "./rounds";
import { fitUnit, maxOf, scaleRows } from "./units";

describe("units that fit their range", () => {
  it("shows sub-millisecond latencies in µs and slow ones in s", () => {
    expect(fitUnit("ms", 0.42)).toEqual({ unit: "µs", factor: 1000 });
    expect(fitUnit("ms", 3.5)).toEqual({ unit: "ms", factor: 1 });
    expect(fitUnit("ms", 9_999)).toEqual({ unit: "ms", factor: 1 });
    expect(fitUnit("ms", 25_000)).toEqual({ unit: "s", factor: 1 / 1000 });
  });

  it("shows a trickle in KiB/s and a flood in GiB/s", () => {
    expect(fitUnit("MiB/s", 0.003)).toEqual({ unit: "KiB/s", factor: 1024 });
    expect(fitUnit("MiB/s", 250)).toEqual({ unit: "MiB/s", factor: 1 });
    expect(fitUnit("MiB/s", 20_480)).toEqual({ unit: "GiB/s", factor: 1 / 1024 });
    expect(fmtMiBs(0.003)).toBe("3.07 KiB/s");
    expect(fmtMiBs(0)).toBe("0.00 MiB/s");
    expect(fmtMiBs(20_480)).toBe("20.0 GiB/s");
  });

  it("leaves units with no ladder and empty ranges alone", () => {
    expect(fitUnit("ops/s", 0.2)).toEqual({ unit: "ops/s", factor: 1 });
    expect(fitUnit("ms", 0)).toEqual({ unit: "ms", factor: 1 });
    expect(fitUnit("ms", Number.NaN)).toEqual({ unit: "ms", factor: 1 });
  });

  it("scales only the lines' values, so ticks come out round in the unit shown", () => {
    const rows = [
      { t: 0, "put p50": 0.25, shards: 11 },
      { t: 1, "put p50": 0.5, shards: 13 },
      { t: 2, shards: 17 },
    ];
    const max = maxOf(rows, ["put p50"]);
    expect(max).toBe(0.5);
    const fit = fitUnit("ms", max);
    const scaled = scaleRows(rows, ["put p50"], fit.factor);
    expect(scaled).toEqual([
      { t: 0, "put p50": 250, shards: 11 },
      { t: 1, "put p50": 500, shards: 13 },
      { t: 2, shards: 17 },
    ]);
    // The input is not changed, and a factor of 1 gives the rows back as they are.
    expect(rows[0]["put p50"]).toBe(0.25);
    expect(scaleRows(rows, ["put p50"], 1)).toBe(rows);
  });
});

describe("rounds chart looks", () => {
  const keys = [
    { phase: "write", op: "put" },
    { phase: "read", op: "get" },
    { phase: "mixed", op: "get" },
    { phase: "mixed", op: "put" },
    { phase: "mixed", op: "list" },
    { phase: "mixed", op: "delete" },
  ];

  it("gives each series its operation's colour and each phase of one operation its own marker", () => {
    const { series } = roundSeriesLooks(keys);
    expect(series.map((s) => s.colour)).toEqual(keys.map((k) => OP_COLOURS[k.op]));
    const looks = new Set(series.map((s) => `${s.colour}|${s.marker}`));
    expect(looks.size).toBe(keys.length);
    expect(series.every((s) => s.dash === "")).toBe(true);
    expect(series[3].marker).not.toBe(series[0].marker);
    // A percentile picked as the metric: its dash, as on every chart.
    expect(roundSeriesLooks(keys, METRICS.p99_ms).series.every((s) => s.dash === PERCENTILE_DASH.p99)).toBe(true);
  });

  it("tells every phase's p50 and p99 apart in the latency chart, p99 in p99's dash", () => {
    const { latencySeries } = roundSeriesLooks(keys);
    expect(latencySeries).toHaveLength(12);
    expect(new Set(latencySeries.map((s) => `${s.colour}|${s.dash}|${s.marker}`)).size).toBe(12);
    for (const s of latencySeries) {
      expect(s.colour).toBe(OP_COLOURS[s.key.split(" · ")[1].split(" ")[0]]);
      expect(s.dash).toBe(PERCENTILE_DASH[s.key.endsWith("p99") ? "p99" : "p50"]);
    }
  });
});

describe("heatmap time axis", () => {
  it("labels round steps in words", () => {
    expect(timeLabel(45)).toBe("45 s");
    expect(timeLabel(120)).toBe("2 min");
    expect(timeLabel(90)).toBe("1 min 30 s");
    expect(timeLabel(5400)).toBe("1 h 30 min");
    expect(timeTicks(0, 60).map((t) => t.label)).toEqual(["0 s", "10 s", "20 s", "30 s", "40 s", "50 s", "1 min"]);
    const hours = timeTicks(0, 7200);
    expect(hours.length).toBeLessThanOrEqual(8);
    expect(hours.map((t) => t.label)).toContain("1 h");
    expect(hours[hours.length - 1].at).toBeLessThanOrEqual(1);
    expect(timeTicks(5, 5)).toEqual([]);
  });

  it("fits a live run's time axis to the run, growing as it goes", () => {
    const h = { op: "put", rows_us: [10], merged: 1, spans_s: [[1, 2], [2, 3], [3, 4]], counts: [[1], [2], [3]], max_count: 3, phases: [] } as Heatmap;
    const point = (end: number) => ({ t: end - 0.5, end, interval: 0, place: "round/1/write", phase: "write" });
    // A 28 s run fills 28 of 30 s, not 28 of 60.
    expect(liveDomain([point(3), point(28)])).toEqual([0, 30]);
    // Its first seconds take their share of ten, not the whole width.
    expect(liveDomain([point(4)])).toEqual([0, MIN_LIVE_SPAN_S]);
    expect(liveDomain([])).toEqual([0, MIN_LIVE_SPAN_S]);
    expect(liveDomain([point(31)])).toEqual([0, 35]);
    expect(liveDomain([point(95)])).toEqual([0, 105]);
    expect(widest(liveDomain([point(4)]), h)).toEqual([0, MIN_LIVE_SPAN_S]);
    // Never narrower than what the heatmap measured, were the points behind.
    const long = { ...h, counts: Array.from({ length: 120 }, () => [1]), spans_s: Array.from({ length: 120 }, (_, i) => [i + 1, i + 2]) };
    expect(widest(liveDomain([point(100)]), long)).toEqual([0, 121]);
  });

  it("ends a time axis at a round time just past the data, filling most of it", () => {
    expect([10, 12, 28, 30, 59, 61, 599, 3599, 7300].map((e) => niceTimeEnd(e))).toEqual([10, 12, 30, 30, 60, 70, 600, 3600, 9000]);
    for (let end = 10.5; end < 100_000; end *= 1.37) {
      const e = niceTimeEnd(end);
      expect(e).toBeGreaterThanOrEqual(end);
      expect(end / e, `${end}`).toBeGreaterThan(0.75);
    }
  });

  it("puts phase names that would overlap on rows below each other", () => {
    expect(labelRows([0, 0.001, 0.05, 0.3, 0.31], 0.1)).toEqual([0, 1, 2, 0, 1]);
  });
});

describe("dash patterns", () => {
  it("differ at a glance: patterns of as many segments differ in their dashes more than twofold", () => {
    const parsed = DASHES.filter(Boolean).map((d) => d.split(" ").map(Number));
    for (let i = 0; i < parsed.length; i++) {
      for (let j = i + 1; j < parsed.length; j++) {
        if (parsed[i].length !== parsed[j].length) continue;
        const ratio = Math.max(parsed[i][0], parsed[j][0]) / Math.min(parsed[i][0], parsed[j][0]);
        expect(ratio, `${DASHES[i + 1]} against ${DASHES[j + 1]}`).toBeGreaterThan(2);
      }
    }
    expect(new Set(DASHES).size).toBe(DASHES.length);
  });
});

describe("latency clock", () => {
  it("says which clock a run's latencies end on, and what it could not stamp", () => {
    expect(latencyClockText({ source: "user", user_timed: 0 })).toBe(
      "latencies end when the client saw each response",
    );
    expect(latencyClockText({ source: "socket", user_timed: 0 })).toBe(
      "latencies end as responses reached the socket (kernel stamps)",
    );
    expect(latencyClockText({ source: "socket", user_timed: 1200 })).toBe(
      "latencies end as responses reached the socket (kernel stamps) (1,200 not stamped, timed by the client's clock)",
    );
  });
});
