import { describe, expect, it } from "vitest";
import type { IntervalRecord, SummaryRow } from "../api/types";
import { askedOf } from "../components/RunDetailView";
import { applyEvent, initialLive, intervalPoint, liveSeries } from "./live";
import { ASKED_KEY } from "./schedule";
import { summaryRow } from "./test-rows";

const LATENCY = { min: 1, mean: 2, p50: 1_070_000, p90: 1_200_000, p99: 1_400_000, p999: 1_500_000, max: 1_600_000 };
const LAG = { min: 0, mean: 1, p50: 1_059_839, p90: 1_100_000, p99: 1_300_000, p999: 1_400_000, max: 1_500_000 };

function row(p: Partial<SummaryRow> & { phase: string }): SummaryRow {
  return summaryRow({ op: "put", bytes: 0, mib_per_sec: 0, latency_us: { min: 1, mean: 2, p50: 800, p90: 900, p99: 1000, p999: 2000, max: 3000 }, ...p });
}

const write = { section: "round" as const, round: 3, index: 0, name: "write" };

function record(t_s: number, lagged: boolean): IntervalRecord {
  return {
    section: "round",
    round: 3,
    phase: "write",
    interval: t_s,
    t_s,
    duration_s: 1,
    warmup: false,
    window: { tail: 0, head: 10 },
    ops: { put: { ...row({ phase: "write", latency_us: LATENCY }), schedule_lag_us: lagged ? LAG : null } },
  } as IntervalRecord;
}

const interval = (id: number, rec: IntervalRecord) => ({
  id,
  name: "interval",
  data: { phase: write, progress: { elapsed_s: rec.t_s, fraction: null, ops: 0, errors: 0, objects: 0 }, record: rec },
});

describe("schedule lag where latency is", () => {
  it("puts how late an open loop's requests left on its points, in the latency's ms", () => {
    const p = intervalPoint(record(1, true));
    expect(p["put sent late p50"]).toBeCloseTo(1059.839);
    expect(p["put sent late p99"]).toBe(1300);
    // A closed loop has no lateness: no line.
    expect(Object.keys(intervalPoint(record(1, false))).filter((k) => k.includes("late"))).toEqual([]);
  });

  it("draws the lag lines and the rate asked on the live charts only for an open loop", () => {
    let s = initialLive();
    s = applyEvent(s, {
      id: 0,
      name: "phase_started",
      data: { phase: write, position: 0, end: { duration: "30s" }, workers: 1, objects: 0, rate: 5000 },
    });
    s = applyEvent(s, interval(1, record(0, true)));
    expect(s.points[0][ASKED_KEY]).toBe(5000);
    // A run across agents says what was asked in each second: with a shard paused or
    // done, less than the phase's rate, and the line follows it.
    s = applyEvent(s, interval(2, { ...record(1, true), asked_per_sec: 2500 }));
    expect(s.points[1][ASKED_KEY]).toBe(2500);
    expect(s.lagOps).toEqual(["put"]);
    const series = liveSeries(s.ops, s.errorClasses, { lagOps: s.lagOps, asked: s.anyAsked });
    expect(series.ops.map((x) => x.name)).toEqual(["put", "asked"]);
    expect(series.lat.map((x) => x.name)).toContain("put sent late p99");
    // The next phase asks no rate: its points carry none, and no lag.
    const read = { ...write, index: 1, name: "read" };
    s = applyEvent(s, { id: 2, name: "phase_started", data: { phase: read, position: 1, end: { duration: "30s" }, workers: 1, objects: 0 } });
    s = applyEvent(s, { ...interval(3, { ...record(1, false), phase: "read" }), data: { ...interval(3, record(1, false)).data, phase: read } });
    expect(s.points[2][ASKED_KEY]).toBeUndefined();
    const closed = liveSeries(["put"], [], {});
    expect(closed.ops.map((x) => x.name)).toEqual(["put"]);
    expect(closed.lat.some((x) => x.name.includes("late"))).toBe(false);
  });

  it("takes a phase's rate asked from its rows, saying when it is of several operations", () => {
    const open = { asked_per_sec: 5000, sent_per_sec: 2383, backlog: 0 };
    const rows = [row({ phase: "write", round: 3, open_loop: open }), row({ phase: "mix", round: 3, op: "get", open_loop: open }), row({ phase: "mix", round: 3, op: "put", open_loop: open })];
    expect(askedOf(rows, { section: "round", round: 3, phase: "write", op: "put" })).toEqual({ rate: 5000, mixed: false });
    expect(askedOf(rows, { section: "round", round: 3, phase: "mix", op: "get" })).toEqual({ rate: 5000, mixed: true });
    expect(askedOf([row({ phase: "write" })], { section: "round", round: 1, phase: "write", op: "put" })).toBeUndefined();
  });
});
