// Reads of keys keystorm did not write: the words of the keys table and the live line,
// where an epochs phase's charts mark each new epoch, and the live page folding the
// `keys` event and each interval's epoch.
import { describe, expect, it } from "vitest";
import type { IntervalRecord, KeysEvent } from "../api/types";
import { epochMarks, keysCount, keysLine, keysListTime, keysListedBytes, keysSource, pointTitle, recordEpochPoints } from "./keys";
import { LIVE_EVENTS, type LiveEventName, type RawEvent, applyEvent, initialLive, isLiveEvent, liveEpochMarks, runningKeys } from "./live";

const read = { section: "before" as const, index: 1, name: "read" };

const listed: KeysEvent = {
  phase: read,
  source: "listing",
  bucket: "keys-demo",
  file: "keys-1.keys",
  keys: 2000,
  part_keys: 2000,
  object_bytes: 2048000,
  list_seconds: 0.0879,
  epochs: 3,
};

const fromFile: KeysEvent = {
  phase: { section: "round", round: 2, index: 3, name: "scan" },
  source: "file",
  bucket: "prod-logs",
  file: "/data/prod-logs.keys",
  keys: 1_000_000,
  part_keys: 250_000,
};

describe("keys words", () => {
  it("names the source, the count (a shard's part of it), the list time and bytes", () => {
    expect(keysSource(listed)).toBe("listing");
    expect(keysSource(fromFile)).toBe("key file");
    expect(keysCount(listed)).toBe("2,000");
    expect(keysCount(fromFile)).toBe("250,000 of 1,000,000");
    expect(keysListTime(listed)).toBe("0.09 s");
    expect(keysListTime({ ...listed, list_seconds: 42.26 })).toBe("42.3 s");
    // A resumed run found the listing of its earlier part complete.
    expect(keysListTime({ ...listed, list_seconds: 0 })).toBe("listed before");
    expect(keysListTime(fromFile)).toBe("–");
    expect(keysListedBytes(listed)).toBe("1.95 MiB");
    expect(keysListedBytes(fromFile)).toBe("–");
  });

  it("says on one line what the running phase reads, and in which epoch", () => {
    expect(keysLine(listed, 2)).toBe("2,000 keys of bucket keys-demo, listed in 0.09 s into keys-1.keys · epoch 2 of 3");
    expect(keysLine(listed)).toBe("2,000 keys of bucket keys-demo, listed in 0.09 s into keys-1.keys · 3 epochs");
    expect(keysLine({ ...listed, prefix: "2026/", list_seconds: 0, epochs: null })).toBe(
      "2,000 keys of bucket keys-demo (prefix 2026/), listed before into keys-1.keys",
    );
    expect(keysLine(fromFile)).toBe("250,000 of the 1,000,000 keys of bucket prod-logs, from key file /data/prod-logs.keys");
  });
});

/** One interval record of phase `phase` (round 1) starting at `t_s`, in `epoch`. */
function record(phase: string, t_s: number, epoch?: number, duration_s = 1): IntervalRecord {
  return {
    section: "round",
    round: 1,
    phase,
    interval: Math.round(t_s),
    t_s,
    duration_s,
    warmup: false,
    window: { tail: 0, head: 10 },
    ops: {},
    epoch,
  };
}

describe("epoch marks", () => {
  it("marks the start of the first interval that ended in each new epoch", () => {
    const records = [1, 1, 2, 2, 3, 3].map((e, i) => record("read", 1.5 + i, e));
    expect(epochMarks(recordEpochPoints(records))).toEqual([
      { t: 3.5, epoch: 2, label: "epoch 2" },
      { t: 5.5, epoch: 3, label: "epoch 3" },
    ]);
  });

  it("says so when one (merged) point passed more than one boundary", () => {
    const records = [record("read", 0, 1, 60), record("read", 60, 3, 60), record("read", 120, 4, 60)];
    expect(epochMarks(recordEpochPoints(records)).map((m) => [m.t, m.label])).toEqual([
      [60, "epochs 2–3"],
      [120, "epoch 4"],
    ]);
  });

  it("counts epochs per phase, and marks nothing of phases without them", () => {
    const records = [
      record("fill", 0),
      record("fill", 1),
      record("read", 2, 1),
      record("read", 3, 2),
      // The next epochs phase starts again at epoch 1: its start is no boundary.
      record("again", 4, 1),
      record("again", 5, 1),
      record("again", 6, 2),
    ];
    expect(epochMarks(recordEpochPoints(records)).map((m) => m.t)).toEqual([3, 6]);
    expect(epochMarks(recordEpochPoints(records.slice(0, 2)))).toEqual([]);
    // A resumed phase's first interval in epoch 2 is no boundary either.
    expect(epochMarks(recordEpochPoints([record("read", 0, 2), record("read", 1, 2)]))).toEqual([]);
  });

  it("titles a chart point with its time and, in an epochs phase, its epoch", () => {
    expect(pointTitle(3.5, 2)).toBe("t = 3.5 s · epoch 2");
    expect(pointTitle(12, undefined)).toBe("t = 12 s");
  });
});

describe("live keys and epochs", () => {
  const interval = (id: number, epoch?: number): RawEvent => ({
    id,
    name: "interval",
    data: {
      phase: read,
      progress: { elapsed_s: id, fraction: 0.5, ops: 100, errors: 0, objects: 2000 },
      record: { ...record("read", id + 0.5, epoch), section: "before", round: null },
    },
  });

  it("shows the keys of the running phase with the epoch of its latest interval", () => {
    let s = initialLive();
    // The keys are ready (listed) before the phase starts.
    s = applyEvent(s, { id: 1, name: "keys", data: listed });
    expect(runningKeys(s)).toBeUndefined();
    s = applyEvent(s, { id: 2, name: "phase_started", data: { phase: read, position: 1, end: { epochs: 3 }, workers: 8, concurrency: 8, objects: 2000 } });
    expect(runningKeys(s)).toEqual(listed);
    expect(s.epoch).toBeUndefined();
    s = applyEvent(s, interval(3, 1));
    s = applyEvent(s, interval(4, 2));
    expect(s.epoch).toBe(2);
    expect(s.points[1].epoch).toBe(2);
    expect(liveEpochMarks(s.points)).toEqual([{ t: 4.5, epoch: 2, label: "epoch 2" }]);
    // The next phase reads no keys: no keys line, no epoch.
    s = applyEvent(s, { id: 5, name: "phase_started", data: { phase: { ...read, index: 2, name: "after" }, position: 2, end: "list_once", listers: 1, concurrency: 1, objects: 2000 } });
    expect(runningKeys(s)).toBeUndefined();
    expect(s.epoch).toBeUndefined();
  });

  it("subscribes to the events it folds, each of which changes what the page shows", () => {
    const phase = { section: "round", round: 1, index: 0, name: "write" };
    const samples: Record<LiveEventName, unknown> = {
      started: { run_id: "r", endpoint: "embedded", phases: 2 },
      phase_started: { phase, position: 0, end: "list_once", listers: 1, concurrency: 1, objects: 0 },
      interval: interval(0, 1).data,
      warning: { message: "slow" },
      threshold: { phase: "round 1 write", expect: "put.p99 < 1ms", actual: 2000, actual_text: "2.0 ms", passed: false },
      thresholds_so_far: { phase, measured_s: 2, checks: [{ phase: "round 1 write", expect: "put.p99 < 1ms", actual: 2000, actual_text: "2.0 ms", passed: false }] },
      reshard: { bucket: "b", from_shards: 11, to_shards: 23, started_s: 1, ended_s: 2 },
      stall: { bucket: "b", started_s: 1, ended_s: 2 },
      cleanup: { bucket: "b", deleted: 1, failed: 0, done: false },
      keys: listed,
      endpoint: { endpoint: "http://gw2:9000", state: "down", t_s: 3.2, phase, failures: 3, detail: "connection refused" },
      pause: { from_t_s: 4, to_t_s: 10, reason: "interrupted", detail: "resumed on h" },
      step: { phase, step: "listing_keys", bucket: "b", done: 5000, elapsed_s: 2, per_sec: 2500 },
      finished: { status: "completed" },
    };
    expect(Object.keys(samples).sort()).toEqual([...LIVE_EVENTS].sort());
    for (const name of LIVE_EVENTS) {
      const before = initialLive();
      const after = applyEvent(before, { id: 0, name, data: samples[name] });
      expect({ ...after, lastId: before.lastId }, name).not.toEqual(before);
    }
    expect(isLiveEvent("keys")).toBe(true);
    // An event the page does not fold is not subscribed to.
    expect(isLiveEvent("phase_finished")).toBe(false);
    expect(isLiveEvent("listing")).toBe(false);
  });
});
