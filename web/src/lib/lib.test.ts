// The UI's pure logic: downsampling, units, round series, run alignment,
// the nines axis, and folding live events (replays included).
import { describe, expect, it } from "vitest";
import type { SummaryRow } from "../api/types";
import { aggregate, normaliseOverlay, overlayRounds } from "./compare";
import { clipWords, fmtAxis, fmtLatency, fmtMiBs, fmtOpMiBs, fmtPercent, fmtRate } from "./format";
import { outlineText } from "./outline";
import { type Heatmap, cellColour, cellRate, heatmapExtent, heatmapPixels, heatmapTotal, maxRate } from "./heatmap";
import { applyEvent, endedSummary, initialLive, liveSeries } from "./live";
import { downsampleRows, lttb } from "./lttb";
import { NINES_TICKS, ninesLabel, ninesOf } from "./nines";
import { objectsAtPhaseStart, partLabel, roundCount, roundsTable, roundSeriesKeys, wholePhaseRows } from "./rounds";
import { fitEnds, fmtKeyCount, humanDuration, parseKeyCount, predictSeconds } from "./scaling";
import { summaryRow } from "./test-rows";

const row = summaryRow;

describe("lttb", () => {
  it("keeps ends and the extreme point, and the requested size", () => {
    const data = Array.from({ length: 10_000 }, (_, i) => ({ t: i, v: i === 5000 ? 1e6 : Math.sin(i / 50) }));
    const out = lttb(data, 500, (d) => d.t, (d) => d.v);
    expect(out).toHaveLength(500);
    expect(out[0].t).toBe(0);
    expect(out[499].t).toBe(9999);
    expect(out.some((d) => d.v === 1e6)).toBe(true);
  });
  it("keeps a spike of any series when rows carry several", () => {
    const rows = Array.from({ length: 7200 }, (_, t) => ({ t, p50: 2, p99: t === 4321 ? 900 : 10 }));
    const out = downsampleRows(rows, 1500, "t", ["p50", "p99"]);
    expect(out.length).toBeLessThanOrEqual(1500);
    expect(out.length).toBeGreaterThan(700);
    expect(out.some((r) => r.p99 === 900)).toBe(true);
    expect(out.map((r) => r.t)).toEqual([...out.map((r) => r.t)].sort((a, b) => a - b));
    expect(downsampleRows(rows.slice(0, 100), 1500, "t", ["p50"])).toHaveLength(100);
  });
  it("returns short series unchanged", () => {
    const data = [1, 2, 3].map((t) => ({ t }));
    expect(lttb(data, 500, (d) => d.t, (d) => d.t)).toEqual(data);
  });
});

describe("units", () => {
  it("writes units out", () => {
    expect(fmtLatency(850)).toBe("850 µs");
    expect(fmtLatency(1500)).toBe("1.50 ms");
    expect(fmtLatency(25_400)).toBe("25.4 ms");
    expect(fmtLatency(2_500_000)).toBe("2.50 s");
    expect(fmtRate(31022.4)).toBe("31,022 ops/s");
    expect(fmtRate(5806.2)).toBe("5,806 ops/s");
    expect(fmtRate(250)).toBe("250 ops/s");
    expect(fmtMiBs(5.5)).toBe("5.50 MiB/s");
  });
});

describe("rounds", () => {
  const rows = [
    row({ section: "before", round: null, phase: "fill", op: "put", objects_at_start: 0 }),
    row({ round: 1, phase: "write", op: "put", ops_per_sec: 10, objects_at_start: 100 }),
    row({ round: 1, phase: "read", op: "get", ops_per_sec: 20, objects_at_start: 200 }),
    row({ round: 2, phase: "write", op: "put", ops_per_sec: 30, objects_at_start: 200 }),
    row({ round: 2, phase: "read", op: "get", ops_per_sec: 40, objects_at_start: 300 }),
  ];
  it("makes one series per phase and operation, one point per round", () => {
    expect(roundSeriesKeys(rows).map((k) => `${k.phase}/${k.op}`)).toEqual(["write/put", "read/get"]);
    expect(roundsTable(rows, (r) => r.ops_per_sec)).toEqual([
      { round: 1, "write · put": 10, "read · get": 20 },
      { round: 2, "write · put": 30, "read · get": 40 },
    ]);
    expect(roundCount(rows)).toBe(2);
  });
  it("lists the objects at each phase's start once", () => {
    expect(objectsAtPhaseStart(rows).map((o) => o.objects)).toEqual([0, 100, 200, 200, 300]);
  });
});

describe("compare", () => {
  it("aggregates rounds exactly: ops over time, worst percentile", () => {
    const a = aggregate([
      row({ round: 1, phase: "write", op: "put", ops: 1000, duration_s: 10, latency_us: { min: 1, mean: 1, p50: 1, p90: 1, p99: 500, p999: 1, max: 45_000_000 } }),
      row({ round: 2, phase: "write", op: "put", ops: 3000, duration_s: 10, latency_us: { min: 1, mean: 1, p50: 1, p90: 1, p99: 900, p999: 1, max: 1 } }),
    ]).get("round|write|put")!;
    expect(a.ops_per_sec).toBe(200);
    expect(a.worst_p99_us).toBe(900);
    // A write held 45 s by a reshard hides under p99.9 but not under max.
    expect(a.max_us).toBe(45_000_000);
  });
  it("adds up each phase's rounds, keeping the phases outside the rounds apart", () => {
    const rows = [
      row({ section: "before", round: null, phase: "fill", op: "put", ops: 50, duration_s: 1 }),
      row({ round: 1, phase: "write", op: "put", ops: 1000, duration_s: 10 }),
      row({ round: 2, phase: "write", op: "put", ops: 3000, duration_s: 10 }),
    ];
    const all = aggregate(rows);
    expect([...all.keys()]).toEqual(["before|fill|put", "round|write|put"]);
    expect(all.get("before|fill|put")!.ops_per_sec).toBe(50);
  });
  it("overlays runs by round, not by time", () => {
    const r1 = [row({ round: 1, phase: "write", op: "put", ops_per_sec: 1 }), row({ round: 2, phase: "write", op: "put", ops_per_sec: 2 })];
    const r2 = [row({ round: 1, phase: "write", op: "put", ops_per_sec: 3, started_at: "2027-01-01T00:00:00Z" })];
    const { data, series } = overlayRounds(
      [
        { id: "a", label: "A", rows: r1 },
        { id: "b", label: "B", rows: r2 },
      ],
      (r) => r.ops_per_sec,
    );
    expect(series.map((s) => s.name)).toEqual(["A · write · put", "B · write · put"]);
    expect(data).toEqual([
      { round: 1, "A · write · put": 1, "B · write · put": 3 },
      { round: 2, "A · write · put": 2 },
    ]);
  });
});

describe("nines axis", () => {
  it("spaces 90, 99, 99.9 evenly", () => {
    expect(ninesOf(0)).toBe(0);
    expect(ninesOf(90)).toBeCloseTo(1);
    expect(ninesOf(99)).toBeCloseTo(2);
    expect(ninesOf(99.9)).toBeCloseTo(3);
    expect(ninesOf(100)).toBe(6);
    expect(ninesLabel(2)).toBe("99 %");
    expect(ninesLabel(3)).toBe("99.9 %");
    expect(NINES_TICKS.map(ninesLabel)).toEqual(["0 %", "50 %", "90 %", "99 %", "99.9 %", "99.99 %", "99.999 %"]);
  });
});

describe("live events", () => {
  const interval = (id: number, ops: number) => ({
    id,
    name: "interval",
    data: {
      phase: { section: "round", round: 1, index: 0, name: "write" },
      progress: { elapsed_s: id, fraction: 0.5, ops, errors: 0, objects: 10 },
      record: {
        section: "round",
        round: 1,
        phase: "write",
        interval: id,
        t_s: id,
        duration_s: 1,
        warmup: false,
        window: { tail: 0, head: 10 },
        ops: { put: { ...row({ phase: "write", op: "put" }), ops, error_classes: { slowdown: 2 } } },
      },
    },
  });
  it("applies each event once, so a replay after a reconnect changes nothing", () => {
    let s = initialLive();
    s = applyEvent(s, { id: 0, name: "started", data: { run_id: "r", endpoint: "embedded", phases: 3 } });
    s = applyEvent(s, interval(1, 5));
    s = applyEvent(s, interval(2, 7));
    const replayed = [interval(1, 5), interval(2, 7)].reduce(applyEvent, s);
    expect(replayed).toBe(s);
    expect(s.points).toHaveLength(2);
    expect(s.ops).toEqual(["put"]);
    expect(s.errorClasses).toEqual(["slowdown"]);
    expect(s.points[1]["errors slowdown"]).toBe(2);
    s = applyEvent(s, { id: 3, name: "finished", data: { status: "interrupted", error: null } });
    expect(s.status).toBe("interrupted");
  });
  it("keeps the card on the phase that started last when a late interval of the one before arrives", () => {
    // Many agents: the merged seconds of round 1 trail the start of the next phase.
    let s = initialLive();
    s = applyEvent(s, { id: 0, name: "started", data: { run_id: "r", endpoint: "x", phases: 3 } });
    s = applyEvent(s, interval(1, 5));
    const next = { section: "round", round: 1, index: 1, name: "read" };
    s = applyEvent(s, { id: 2, name: "phase_started", data: { phase: next, position: 2, end: "list_once", listers: 1, concurrency: 1, objects: 10 } });
    s = applyEvent(s, interval(3, 7));
    expect(s.phase).toEqual(next);
    expect(s.position).toBe(2);
    expect(s.progress).toBeUndefined();
    // The late second is still drawn.
    expect(s.points).toHaveLength(2);
  });
  it("draws a phase's 50 ms last interval folded into the second before it: no dip", () => {
    const get = (ops: number, seconds: number, p99_us: number) => ({
      ...row({ phase: "read", op: "get" }),
      ops,
      ops_per_sec: ops / seconds,
      latency_us: { min: 100, mean: 500, p50: 400, p90: 800, p99: p99_us, p999: p99_us, max: p99_us },
    });
    const record = (n: number, t_s: number, duration_s: number, ops: number, p99: number) => ({
      section: "round" as const,
      round: 1,
      phase: "read",
      interval: n,
      t_s,
      duration_s,
      warmup: false,
      window: { tail: 0, head: 10 },
      ops: { get: get(ops, duration_s, p99) },
    });
    const event = (id: number, rec: ReturnType<typeof record>, folded?: ReturnType<typeof record>) => ({
      id,
      name: "interval",
      data: {
        phase: { section: "round", round: 1, index: 0, name: "read" },
        progress: { elapsed_s: rec.t_s + rec.duration_s - 3, fraction: null, ops: 0, errors: 0, objects: 10 },
        record: rec,
        folded,
      },
    });
    let s = initialLive();
    s = applyEvent(s, event(1, record(0, 3, 1, 5000, 2000)));
    s = applyEvent(s, event(2, record(1, 4, 1, 5100, 2100)));
    // The last 50 ms: 51 requests that were in flight, p99 45 ms.
    const sliver = record(2, 5, 0.05, 51, 45_000);
    s = applyEvent(s, event(3, sliver, { ...record(1, 4, 1.05, 5151, 2300), merged: 2 } as ReturnType<typeof record>));
    expect(s.points).toHaveLength(2);
    const rates = s.points.map((p) => p["get ops/s"] as number);
    expect(Math.min(...rates)).toBeGreaterThan(4900);
    expect(s.points[1]["get p99"]).toBe(2.3);
    // Each point sits in the middle of the time it covers; the last ends with the phase.
    expect(s.points.map((p) => p.t)).toEqual([3.5, 4.525]);
    expect(s.points[1].end).toBeCloseTo(5.05, 9);
  });
});

describe("list scaling", () => {
  const line = {
    phase: "serial",
    mode: "serial",
    listers: 1,
    concurrency: 1,
    points: [
      { keys: 10_000, seconds: 1.5 },
      { keys: 20_000, seconds: 2.5 },
    ],
    fit: {
      slope_s_per_key: 1e-4,
      intercept_s: 0.5,
      r2: 1,
      points: 2,
      max_keys: 20_000,
      mean_keys: 15_000,
      sxx: 5e7,
      residual_s: null,
      t95: null,
      refusal: "only two sizes were measured, and any line fits two points; measure three or more",
      reach_keys: 2e6,
    },
  };
  it("reads key counts as people write them", () => {
    expect(parseKeyCount("67e9")).toBe(67e9);
    expect(parseKeyCount("67 billion")).toBe(67e9);
    expect(parseKeyCount("1.5M")).toBe(1.5e6);
    expect(parseKeyCount("2,000,000")).toBe(2e6);
    expect(parseKeyCount("lots")).toBeNull();
    expect(parseKeyCount("0")).toBeNull();
  });
  it("extrapolates along the fitted line and says it in days", () => {
    expect(predictSeconds(line.fit, 67e9)).toBeCloseTo(6.7e6 + 0.5, 3);
    expect(humanDuration(6.7e6)).toBe("77 days 13 h");
    expect(humanDuration(4.24)).toBe("4.2 s");
    expect(fmtKeyCount(67e9)).toBe("67 billion");
  });
  it("draws the fitted line from zero to the largest listing", () => {
    expect(fitEnds(line, 20_000)).toEqual([
      { keys: 0, "serial fit": 0.5 },
      { keys: 20_000, "serial fit": 2.5 },
    ]);
    expect(fitEnds({ ...line, fit: null }, 20_000)).toEqual([]);
  });
});

describe("partLabel", () => {
  it("says which part of its phase a row covers", () => {
    expect(partLabel({})).toBe("");
    expect(partLabel({ interrupted: true })).toBe("interrupted");
    expect(partLabel({ resumed: true })).toBe("resumed");
    expect(partLabel({ resumed: true, interrupted: true })).toBe("resumed + interrupted");
    expect(partLabel({ resumed: true, taken_over: true, redone: 1234 })).toBe("taken over, 1,234 redone");
    expect(partLabel({ taken_over: true, interrupted: true })).toBe("taken over + interrupted");
  });
});

describe("percent changes", () => {
  it("shows what rounds to nothing without a sign", () => {
    expect(fmtPercent(-0.04)).toBe("0.0 %");
    expect(fmtPercent(0.04)).toBe("0.0 %");
    expect(fmtPercent(-0.06)).toBe("-0.1 %");
    expect(fmtPercent(12.34)).toBe("+12.3 %");
  });
});

describe("a run that ended", () => {
  const state = (points: number[], position?: number) => ({
    ...initialLive(),
    phases: 5,
    position,
    points: points.map((end, i) => ({ t: end - 0.5, end, interval: i, place: "before/-/fill", phase: "fill" })),
  });
  it("says how it ended, after how long and how far it got", () => {
    expect(endedSummary("completed", state([1, 2, 27]))).toBe("completed in 27.0 s, 5 phases");
    expect(endedSummary("interrupted", state([1, 12], 2))).toBe("interrupted after 12.0 s, in phase 3 of 5");
    expect(endedSummary("failed", state([]))).toBe("failed");
  });
});

describe("bandwidth per operation", () => {
  it("is a dash for operations that move no payload", () => {
    expect(fmtOpMiBs("list", 0)).toBe("–");
    expect(fmtOpMiBs("delete", 0)).toBe("–");
    expect(fmtOpMiBs("put", 0)).toBe("0.00 MiB/s");
    expect(fmtOpMiBs("get", 12.345)).toBe("12.3 MiB/s");
  });
});

describe("workload in words", () => {
  const phase = (section: string, name: string) => ({ section, name, op: "put" });
  it("says the phases as one would", () => {
    const outline = {
      name: "w",
      rounds: 3,
      phases: [phase("before", "fill"), phase("round", "write"), phase("round", "read"), phase("round", "mixed"), phase("after", "list")],
    };
    expect(outlineText(outline)).toBe("fill, then 3 rounds of write · read · mixed, then list");
    expect(outlineText({ name: "w", rounds: 1, phases: [phase("round", "read")] })).toBe("1 round of read");
    expect(outlineText({ name: "w", rounds: 0, phases: [phase("before", "fill"), phase("before", "head")] })).toBe("fill, head");
  });
  it("cuts a description at a word's end", () => {
    const text = "Fills a bucket to ten million objects, then lists it by prefixes in parallel";
    expect(clipWords(text, 40)).toBe("Fills a bucket to ten million objects…");
    expect(clipWords("short", 40)).toBe("short");
  });
});

describe("live chart colours", () => {
  it("give each operation one colour and its percentiles a dash each, no two series alike", () => {
    const { lat, ops } = liveSeries(["put", "get", "list", "delete"], []);
    expect(lat).toHaveLength(12);
    const looks = new Set(lat.map((s) => `${s.colour}|${s.dash}`));
    expect(looks.size).toBe(12);
    for (const op of ["put", "get", "list", "delete"]) {
      const mine = lat.filter((s) => s.key.startsWith(`${op} `));
      expect(new Set(mine.map((s) => s.colour)).size).toBe(1);
      expect(new Set(mine.map((s) => s.dash)).size).toBe(3);
      expect(ops.find((s) => s.name === op)?.colour).toBe(mine[0].colour);
    }
    expect(new Set(ops.map((s) => s.colour)).size).toBe(4);
  });
});

describe("axis numbers", () => {
  it("shows counts whole and decimals without trailing zeros", () => {
    expect(fmtAxis(0)).toBe("0");
    expect(fmtAxis(24)).toBe("24");
    expect(fmtAxis(37359)).toBe("37,359");
    expect(fmtAxis(5806.4)).toBe("5,806");
    expect(fmtAxis(2.5)).toBe("2.5");
    expect(fmtAxis(1.234)).toBe("1.23");
    expect(fmtAxis(0.0125)).toBe("0.0125");
    expect(fmtAxis(0.5)).toBe("0.5");
  });
});

describe("compare normalised to run A", () => {
  it("divides each run by the first run's same phase, operation and round", () => {
    const row = (round: number, phase: string, op: string, v: number) => ({ section: "round", round, phase, op, ops_per_sec: v }) as unknown as SummaryRow;
    const overlay = overlayRounds(
      [
        { id: "a", label: "A", rows: [row(1, "write", "put", 100), row(2, "write", "put", 200), row(1, "read", "get", 0)] },
        { id: "b", label: "B", rows: [row(1, "write", "put", 150), row(2, "write", "put", 100), row(1, "read", "get", 5)] },
        { id: "c", label: "C", rows: [row(1, "write", "put", 50)] },
      ],
      (r) => r.ops_per_sec,
    );
    const n = normaliseOverlay(overlay);
    expect(n.data[0]["A · write · put"]).toBe(1);
    expect(n.data[0]["B · write · put"]).toBe(1.5);
    expect(n.data[0]["C · write · put"]).toBe(0.5);
    expect(n.data[1]["B · write · put"]).toBe(0.5);
    // A zero baseline draws nothing rather than infinity.
    expect(n.data[0]["B · read · get"]).toBeUndefined();
  });
});

describe("latency heatmap", () => {
  const heat = {
    op: "put",
    rows_us: [10, 100, 1000, 10000],
    merged: 1,
    spans_s: [
      [0, 1],
      [1, 2],
    ],
    counts: [
      [0, 100, 0, 0],
      [0, 90, 0, 3],
    ],
    max_count: 100,
    phases: [],
  } as unknown as Heatmap;
  it("colours cells on a log scale, empty ones clear", () => {
    expect(cellColour(0, 100)[3]).toBe(0);
    const few = cellColour(3, 100);
    const most = cellColour(100, 100);
    expect(few[3]).toBe(255);
    expect(most).toEqual([76, 29, 149, 255]);
    // Three operations out of a hundred still show plainly, not near-white.
    expect(few[0] + few[1] + few[2]).toBeLessThan(253 + 230 + 138);
  });
  it("puts each column's cells in a pixel column, fastest at the bottom", () => {
    const { width, height, data } = heatmapPixels(heat, 0, 2, 2);
    expect([width, height]).toEqual([2, 4]);
    const alpha = (x: number, yFromTop: number) => data[(yFromTop * width + x) * 4 + 3];
    // Column 1's 3 slow operations (row 3) are at the top; row 1 is second from the bottom.
    expect(alpha(1, 0)).toBe(255);
    expect(alpha(0, 0)).toBe(0);
    expect(alpha(0, 2)).toBe(255);
    expect(heatmapTotal(heat)).toBe(193);
  });
  it("draws each column where its interval ran, coloured by its rate", () => {
    // A phase that began 1.74 s into the run: a second, then a last 1.2 s with as many
    // operations (a slower rate); nothing before 1.74 s.
    const late = { ...heat, spans_s: [[1.74, 2.74], [2.74, 3.94]], counts: [[0, 120, 0, 0], [0, 120, 0, 0]] } as unknown as Heatmap;
    expect(heatmapExtent(late)).toEqual([1.74, 3.94]);
    expect(cellRate(late, 1, 1)).toBeCloseTo(100);
    expect(maxRate(late)).toBeCloseTo(120);
    // On an axis of 0-4 s at 100 pixels a second: clear up to 1.74 s, then the cells.
    const { width, data } = heatmapPixels(late, 0, 4, 400);
    const row1 = (x: number) => data.slice(((4 - 1 - 1) * width + x) * 4, ((4 - 1 - 1) * width + x) * 4 + 4);
    expect(row1(173)[3]).toBe(0);
    expect(row1(174)[3]).toBe(255);
    expect(row1(393)[3]).toBe(255);
    expect(row1(394)[3]).toBe(0);
    // The same count over a longer span is a paler cell: a rate, not a count.
    expect(row1(300)[0]).toBeGreaterThan(row1(200)[0]);
  });
});

describe("a round stopped and resumed", () => {
  it("is one point across rounds: the whole phase's row, not its resumed part's", () => {
    const stopped = row({ phase: "read", op: "get", ops_per_sec: 1000, interrupted: true });
    const resumed = row({ phase: "read", op: "get", ops_per_sec: 100, resumed: true });
    const whole = row({ phase: "read", op: "get", ops_per_sec: 700, resumed: true });
    const detail = { summary: { format_version: 1, run_id: "r", rows: [stopped, resumed], totals: [] }, phases: [whole] };
    expect(roundsTable(wholePhaseRows(detail), (r) => r.ops_per_sec)).toEqual([{ round: 1, "read · get": 700 }]);
    // From a server that sends no whole phases: the part rows.
    expect(wholePhaseRows({ summary: detail.summary, phases: [] })).toEqual([stopped, resumed]);
  });
});
