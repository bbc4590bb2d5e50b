// The bucket index in chart form: shard step series across rounds, reshards and stalls
// placed in rounds, the windows shaded per second, several buckets, and the live state.
import { describe, expect, it } from "vitest";
import type { BucketIndex, IndexReport, IntervalRecord, PhaseRef, ReshardRecord, StallRecord, SummaryRow } from "../api/types";
import {
  bucketTotals,
  eventWindows,
  hasIndexData,
  linkedStalls,
  mergeByX,
  overlayShards,
  phaseWindows,
  reshardWhen,
  roundLabel,
  roundMarkSpecs,
  roundMarks,
  roundShardRows,
  shardKey,
  shardTicks,
  stallHeldText,
  stallText,
} from "./bucket-index";
import { MAX_LIVE_MARKS, applyEvent, initialLive, intervalPoint, pointSpan } from "./live";

const RUN_START = "2026-11-22T10:00:00.000Z";

/** A summary row of a phase started `t0` seconds into the run. */
function row(p: Partial<SummaryRow> & { phase: string; t0: number }): SummaryRow {
  const { t0, ...rest } = p;
  return {
    section: "round",
    round: 1,
    op: "put",
    objects_at_start: 0,
    started_at: new Date(Date.parse(RUN_START) + t0 * 1000).toISOString(),
    duration_s: 5,
    client_cpu_s: 1,
    ops: 1000,
    errors: 0,
    error_rate: 0,
    error_classes: {},
    ops_per_sec: 200,
    bytes: 0,
    mib_per_sec: 0,
    keys: 0,
    keys_per_sec: 0,
    latency_us: { min: 1, mean: 2, p50: 100, p90: 200, p99: 1000, p999: 2000, max: 3000 },
    ...rest,
  } as SummaryRow;
}

const idx = (shards: number, bucket = "b", objects = 0): BucketIndex => ({ bucket, shards, objects, resharding: false });

const phase = (section: PhaseRef["section"], round: number | null, name: string, index = 0): PhaseRef => ({ section, round, name, index });

function reshard(p: Partial<ReshardRecord> & { id: number; from_shards: number; to_shards: number; start_t_s: number; end_t_s: number }): ReshardRecord {
  return { bucket: "b", objects: 1000, start: null, end: null, stalls: [], ...p };
}

function stall(p: Partial<StallRecord> & { id: number; phase: PhaseRef; start_t_s: number; end_t_s: number }): StallRecord {
  return {
    first_interval: 4,
    last_interval: 6,
    min_write_ops_per_sec: 0,
    median_write_ops_per_sec: 950,
    max_write_p99_us: 2_010_000,
    median_write_p99_us: 26_900,
    throughput: true,
    latency: false,
    reshard: null,
    ...p,
  };
}

/** A dynamic bucket: 11 shards after the fill, resharded in rounds 1 and 2, not in 3. */
const dynamicRows = [
  row({ section: "before", round: null, phase: "fill", t0: 0, index_at_start: [idx(11)], index_at_end: [idx(11)] }),
  row({ round: 1, phase: "write", t0: 3, index_at_start: [idx(11)], index_at_end: [idx(23)] }),
  row({ round: 1, phase: "read", op: "get", t0: 8, index_at_start: [idx(23)], index_at_end: [idx(23)] }),
  row({ round: 2, phase: "write", t0: 12, index_at_start: [idx(23)], index_at_end: [idx(47)] }),
  row({ round: 2, phase: "read", op: "get", t0: 17, index_at_start: [idx(47)], index_at_end: [idx(47)] }),
  row({ round: 3, phase: "write", t0: 21, index_at_start: [idx(47)], index_at_end: [idx(47)] }),
  row({ round: 3, phase: "read", op: "get", t0: 26, index_at_start: [idx(47)], index_at_end: [idx(47)] }),
];

describe("shard count across rounds", () => {
  it("steps at the round a reshard happened in, from the first round's start to the last round's end", () => {
    const { data, buckets } = roundShardRows(dynamicRows);
    expect(buckets).toEqual(["b"]);
    expect(data).toEqual([
      { round: 0.8, [shardKey("b")]: 11 },
      { round: 1, [shardKey("b")]: 23 },
      { round: 2, [shardKey("b")]: 47 },
      { round: 3, [shardKey("b")]: 47 },
      { round: 3.2, [shardKey("b")]: 47 },
    ]);
  });

  it("is flat for a pre-sharded bucket, and falls back to the start when a round has no end snapshot", () => {
    const rows = [
      row({ round: 1, phase: "write", t0: 0, index_at_start: [idx(211)], index_at_end: [idx(211)] }),
      row({ round: 2, phase: "write", t0: 5, index_at_start: [idx(211)] }),
    ];
    const values = roundShardRows(rows).data.map((r) => r[shardKey("b")]);
    expect(values).toEqual([211, 211, 211, 211]);
  });

  it("is empty when the index was not tracked", () => {
    expect(roundShardRows([row({ phase: "write", t0: 0 })])).toEqual({ data: [], buckets: [] });
    expect(hasIndexData({ reshards: [], stalls: [], polling: null }, [row({ phase: "write", t0: 0 })])).toBe(false);
    expect(hasIndexData(undefined, dynamicRows)).toBe(true);
  });

  it("draws one line per bucket, under the caller's keys", () => {
    const rows = [
      row({ round: 1, phase: "write", t0: 0, index_at_start: [idx(11, "a"), idx(11, "b")], index_at_end: [idx(23, "a"), idx(11, "b")] }),
      row({ round: 2, phase: "write", t0: 5, index_at_start: [idx(23, "a"), idx(11, "b")], index_at_end: [idx(23, "a"), idx(29, "b")] }),
    ];
    const { data, buckets } = roundShardRows(rows, (b) => `run 1 · ${b}`);
    expect(buckets).toEqual(["a", "b"]);
    expect(data.map((r) => [r.round, r["run 1 · a"], r["run 1 · b"]])).toEqual([
      [0.8, 11, 11],
      [1, 23, 11],
      [2, 23, 29],
      [2.2, 23, 29],
    ]);
  });

  it("gives the shard axis round ticks with headroom above the highest count", () => {
    expect(shardTicks(211)).toEqual([0, 100, 200, 300]);
    expect(shardTicks(11)).toEqual([0, 5, 10, 15]);
    expect(shardTicks(1)).toEqual([0, 1, 2]);
    expect(shardTicks(0)).toEqual([0, 1]);
    expect(shardTicks(65521).length).toBeLessThanOrEqual(5);
    expect(shardTicks(65521)[shardTicks(65521).length - 1]).toBeGreaterThan(65521);
  });

  it("overlays each run's shard line under its own key, a dynamic and a pre-sharded run side by side", () => {
    const presharded = dynamicRows.map((r) => ({ ...r, index_at_start: [idx(211)], index_at_end: [idx(211)] }));
    const { data, series } = overlayShards([
      { label: "#1 index=dynamic", tag: "#1", rows: dynamicRows },
      { label: "#2 index=presharded", tag: "#2", rows: presharded },
      { label: "#3 untracked", tag: "#3", rows: [row({ phase: "write", t0: 0 })] },
    ]);
    expect(series).toEqual([
      { key: "#1 index=dynamic · b index shards", name: "#1 index shards", run: 0 },
      { key: "#2 index=presharded · b index shards", name: "#2 index shards", run: 1 },
    ]);
    expect(data.map((r) => [r.round, r[series[0].key], r[series[1].key]])).toEqual([
      [0.8, 11, 211],
      [1, 23, 211],
      [2, 47, 211],
      [3, 47, 211],
      [3.2, 47, 211],
    ]);
  });

  it("merges the shard rows into the throughput rows by round", () => {
    const merged = mergeByX("round", [{ round: 1, tput: 5 }, { round: 2, tput: 6 }], [{ round: 0.8, s: 11 }, { round: 1, s: 23 }]);
    expect(merged).toEqual([{ round: 0.8, s: 11 }, { round: 1, tput: 5, s: 23 }, { round: 2, tput: 6 }]);
    expect(roundLabel(2)).toBe("round 2");
    expect(roundLabel(0.8)).toBe("start of round 1");
    expect(roundLabel(3.2)).toBe("end of round 3");
  });
});

describe("reshards and stalls marked on rounds", () => {
  const report: IndexReport = {
    reshards: [
      // Seen during the fill: not in any round.
      reshard({ id: 3, from_shards: 5, to_shards: 11, start_t_s: 0.5, end_t_s: 2, end: { phase: phase("before", null, "fill"), interval: 2 } }),
      // Began at the fill's end (between phases), seen in round 1's write.
      reshard({ id: 7, from_shards: 11, to_shards: 23, start_t_s: 2.9, end_t_s: 5, end: { phase: phase("round", 1, "write"), interval: 2 } }),
      // No positions at all: placed by time, 13.5 s is in round 2's write.
      reshard({ id: 12, from_shards: 23, to_shards: 47, start_t_s: 11.5, end_t_s: 13.5 }),
    ],
    stalls: [
      stall({ id: 9, phase: phase("round", 1, "write"), start_t_s: 4, end_t_s: 7, first_interval: 1, last_interval: 4, reshard: 7 }),
      stall({ id: 20, phase: phase("round", 3, "write"), start_t_s: 22, end_t_s: 23, first_interval: 1, last_interval: 1, throughput: false, latency: true }),
    ],
    polling: null,
  };

  it("puts each event in its round, with what happened written out", () => {
    const marks = roundMarks(report, dynamicRows, RUN_START);
    expect(marks.map((m) => [m.round, m.reshards.map((r) => r.id), m.stalls.map((s) => s.id)])).toEqual([
      [1, [7], [9]],
      [2, [12], []],
      [3, [], [20]],
    ]);
    expect(marks[0].lines).toEqual(["reshard 11→23 shards", "write stall 4 s, 0 ops/s vs median 950"]);
    expect(marks[2].lines).toEqual(["write stall 1 s, p99 2.01 s vs median 26.9 ms"]);
  });

  it("marks a phase's panel only with what happened while that phase ran", () => {
    const write = roundMarks(report, dynamicRows, RUN_START, "write");
    expect(write.map((m) => [m.round, m.reshards.map((r) => r.id), m.stalls.map((s) => s.id)])).toEqual([
      [1, [7], [9]],
      [2, [12], []],
      [3, [], [20]],
    ]);
    // Every reshard and stall of this run happened in the writes: the reads' panel has none.
    expect(roundMarks(report, dynamicRows, RUN_START, "read")).toEqual([]);
    // A reshard seen while round 2's read ran is the read's.
    const inRead = { ...report, reshards: [reshard({ id: 30, from_shards: 47, to_shards: 97, start_t_s: 17.5, end_t_s: 18 })], stalls: [] };
    expect(roundMarks(inRead, dynamicRows, RUN_START, "read").map((m) => m.round)).toEqual([2]);
    expect(roundMarks(inRead, dynamicRows, RUN_START, "write")).toEqual([]);
  });

  it("uses positions alone when the run's start time is unknown", () => {
    const marks = roundMarks(report, dynamicRows, null);
    expect(marks.map((m) => m.round)).toEqual([1, 3]);
  });

  it("names the bucket when several were resharded", () => {
    const two = { ...report, reshards: [report.reshards[1], { ...report.reshards[2], bucket: "other" }], stalls: [] };
    expect(roundMarks(two, dynamicRows, RUN_START).flatMap((m) => m.lines)).toEqual([
      "b: reshard 11→23 shards",
      "other: reshard 23→47 shards",
    ]);
  });

  it("colours marks by what happened, and among several runs puts each run's in its own row", () => {
    const marks = roundMarks(report, dynamicRows, RUN_START);
    const own = roundMarkSpecs(marks);
    expect(own.map((m) => [m.round, m.kind, m.short])).toEqual([
      [1, "reshard + stall", "R+S"],
      [2, "reshard", "R"],
      [3, "stall", "S"],
    ]);
    expect(own[0].title).toBe("round 1:\nreshard 11→23 shards\nwrite stall 4 s, 0 ops/s vs median 950");
    expect(own[1].colour).not.toBe(own[2].colour);
    const runs = roundMarkSpecs(marks, { row: 1, tag: "#2", label: "#2 index=dynamic" });
    expect(runs.map((m) => [m.text, m.row, m.colour])).toEqual([
      ["#2 reshard + stall", 1, own[0].colour],
      ["#2 reshard", 1, own[1].colour],
      ["#2 stall", 1, own[2].colour],
    ]);
    expect(runs[0].title.split("\n")[0]).toBe("round 1, #2 index=dynamic:");
    expect(roundMarks(undefined, dynamicRows, RUN_START)).toEqual([]);
  });

  it("writes out when and where, and links stalls from either side", () => {
    expect(reshardWhen(report.reshards[1])).toBe("between phases → round 1 · write, second 2 (t = 2.9–5.0 s)");
    expect(reshardWhen(report.reshards[2])).toBe("t = 11.5–13.5 s");
    const inOnePhase = { ...report.reshards[1], start: { phase: phase("round", 1, "write"), interval: 0 } };
    expect(reshardWhen(inOnePhase)).toBe("round 1 · write, seconds 0–2 (t = 2.9–5.0 s)");
    expect(linkedStalls(report.reshards[1], report.stalls).map((s) => (typeof s === "number" ? s : s.id))).toEqual([9]);
    expect(linkedStalls({ ...report.reshards[2], stalls: [99] }, report.stalls)).toEqual([99]);
    expect(stallText({ ...report.stalls[0], latency: true })).toBe("write stall 4 s, 0 ops/s vs median 950, p99 2.01 s vs median 26.9 ms");
  });

  it("tells the writes a stall held and the longest wait, in the CLI's words, and no latency where no write finished", () => {
    const held = { ...report.stalls[0], latency: true, max_write_p99_us: 24_100_000, held_writes: 14, longest_write_us: 24_310_000 };
    expect(stallText(held)).toBe("write stall 4 s, 0 ops/s vs median 950, p99 24.10 s vs median 26.9 ms, 14 writes held, the longest 24.31 s");
    expect(stallHeldText({ ...held, held_writes: 1, longest_write_us: 950 })).toBe("1 write held, the longest 950 µs");
    // None held, or recorded before they were counted: nothing said of them.
    expect(stallHeldText({ ...held, held_writes: 0, longest_write_us: 0 })).toBeNull();
    expect(stallHeldText(report.stalls[0])).toBeNull();
    const none = { ...report.stalls[0], max_write_p99_us: 0, latency: false };
    expect(stallText(none)).toBe("write stall 4 s, 0 ops/s vs median 950, no write finished");
    expect(stallText({ ...none, latency: true })).not.toMatch(/p99|µs/);
    // Where a stall is told: the round mark's tooltip and the shaded window's.
    const marks = roundMarks({ ...report, stalls: [held] }, dynamicRows, RUN_START);
    expect(roundMarkSpecs(marks)[0].title).toContain("14 writes held, the longest 24.31 s");
    expect(eventWindows([], [held], 0, 30)[0].title).toContain("14 writes held, the longest 24.31 s");
  });

  it("sums each bucket's shards from start to end", () => {
    expect(bucketTotals(dynamicRows, report.reshards)).toEqual([
      { bucket: "b", startShards: 11, endShards: 47, endObjects: 0, reshards: 3 },
    ]);
  });
});

describe("windows of one phase × round, per second", () => {
  const interval = (round: number, phaseName: string, i: number, t: number, index: BucketIndex[] = []): IntervalRecord => ({
    section: "round",
    round,
    phase: phaseName,
    interval: i,
    t_s: t,
    duration_s: 1,
    warmup: false,
    window: { tail: 0, head: 0 },
    ops: {},
    index,
  });
  const write2 = [0, 1, 2, 3, 4].map((i) => interval(2, "write", i, 12 + i));
  const report: IndexReport = {
    reshards: [
      reshard({ id: 1, from_shards: 11, to_shards: 23, start_t_s: 3, end_t_s: 5 }),
      reshard({ id: 2, from_shards: 23, to_shards: 47, start_t_s: 11, end_t_s: 13.5 }),
      reshard({ id: 3, from_shards: 47, to_shards: 97, start_t_s: 15.9, end_t_s: 15.95 }),
    ],
    stalls: [
      stall({ id: 4, phase: phase("round", 2, "write"), start_t_s: 13, end_t_s: 15 }),
      stall({ id: 5, phase: phase("round", 1, "write"), start_t_s: 13, end_t_s: 15 }),
    ],
    polling: null,
  };

  it("shades the reshards overlapping the phase, clipped to it, and only its own stalls", () => {
    const windows = phaseWindows(report, { section: "round", round: 2, phase: "write" }, write2);
    expect(windows.map((w) => [w.kind, w.id, w.x1, w.x2, w.label])).toEqual([
      ["reshard", 2, 12, 13.5, "reshard 23→47"],
      ["reshard", 3, 15.675, 16.175, "reshard 47→97"],
      ["stall", 4, 13, 15, "write stall"],
    ]);
    expect(windows[2].title).toBe("write stall 3 s, 0 ops/s vs median 950");
  });

  it("has nothing to shade without intervals or an index report", () => {
    expect(phaseWindows(report, { section: "round", round: 2, phase: "write" }, [])).toEqual([]);
    expect(phaseWindows(null, { section: "round", round: 2, phase: "write" }, write2)).toEqual([]);
    expect(eventWindows(report.reshards, [], 100, 200)).toEqual([]);
  });

  it("puts each bucket's shards into the per-second points", () => {
    const p = intervalPoint(interval(2, "write", 0, 12, [idx(23, "a"), idx(11, "b")]));
    expect(p[shardKey("a")]).toBe(23);
    expect(p[shardKey("b")]).toBe(11);
    expect(Object.keys(intervalPoint(interval(2, "write", 0, 12))).some((k) => k.startsWith("index shards"))).toBe(false);
  });

  it("says what a point stands for: a second, or the seconds merged into it", () => {
    expect(pointSpan(write2)).toBe("Per second");
    expect(pointSpan([])).toBe("Per second");
    const merged = [{ ...write2[0], merged: 44, duration_s: 44 }, { ...write2[1], merged: 12, duration_s: 11.5 }];
    expect(pointSpan(merged)).toBe("Per 44 s (merged seconds)");
    // A last point with its sliver folded in stands for two intervals; the rest are seconds.
    expect(pointSpan([write2[0], write2[1], { ...write2[1], merged: 2, duration_s: 1.05 }])).toBe("Per second");
    // A phase of 1.1 s is one second with its sliver folded in: one point, not two seconds.
    expect(pointSpan([{ ...write2[0], merged: 2, duration_s: 1.1 }])).toBe("One point for the whole phase");
    // A two-second phase: its first second, then its second with a sliver folded in.
    expect(pointSpan([write2[0], { ...write2[1], merged: 2, duration_s: 1.2 }])).toBe("Per second");
  });
});

describe("live bucket index", () => {
  it("keeps the index as last polled, each bucket once, and a bounded list of reshards and stalls", () => {
    let s = initialLive();
    s = applyEvent(s, {
      id: 1,
      name: "phase_started",
      data: { phase: phase("round", 1, "write"), position: 1, end: {}, workers: 8, concurrency: 8, objects: 0, index: [idx(11, "a")] },
    });
    expect(s.index).toEqual([idx(11, "a")]);
    expect(s.buckets).toEqual(["a"]);
    const r = reshard({ id: 0, from_shards: 11, to_shards: 23, start_t_s: 1, end_t_s: 2 });
    for (let id = 2; id < 2 + MAX_LIVE_MARKS + 10; id++) s = applyEvent(s, { id, name: "reshard", data: { ...r, id: undefined } });
    expect(s.reshards).toHaveLength(MAX_LIVE_MARKS);
    expect(s.reshards[s.reshards.length - 1].id).toBe(MAX_LIVE_MARKS + 11);
    const before = s;
    s = applyEvent(s, { id: 5, name: "stall", data: stall({ id: 0, phase: phase("round", 1, "write"), start_t_s: 1, end_t_s: 2 }) });
    expect(s).toBe(before);
    s = applyEvent(s, { id: 1000, name: "stall", data: stall({ id: 0, phase: phase("round", 1, "write"), start_t_s: 1, end_t_s: 2 }) });
    expect(s.stalls.map((x) => x.id)).toEqual([1000]);
  });
});
