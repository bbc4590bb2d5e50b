import { describe, expect, it } from "vitest";
import type { Timeline } from "../api/types";
import { downsampleRows } from "./lttb";
import { breakAtPauses, isGap, pauseWindows, pausesOf } from "./pauses";

const timeline: Timeline = {
  omitted: 0,
  entries: [
    { t_s: 2, kind: "endpoint_down", text: "endpoint http://gw2 down" },
    { t_s: 10.5, until_t_s: 16.5, kind: "pause", reason: "interrupted", text: "paused 6.0 s (interrupted)" },
  ],
};

/** One point a second from 0.5 s, as intervals are drawn, the pause's seconds left out. */
const rows = [0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 16.9, 17.9, 18.9].map((t) => ({ t, "put ops/s": 1000 + t }));

describe("pauses on charts", () => {
  it("reads the pauses of a timeline, not its other entries", () => {
    expect(pausesOf(timeline)).toEqual([{ from: 10.5, to: 16.5, reason: "interrupted", text: "paused 6.0 s (interrupted)", shard: null }]);
    expect(pausesOf(null)).toEqual([]);
  });

  it("puts a gap row inside each pause, so no line is drawn across it", () => {
    const broken = breakAtPauses(rows, pausesOf(timeline));
    expect(broken).toHaveLength(rows.length + 1);
    const gap = broken.findIndex(isGap);
    expect(broken[gap]).toEqual({ t: 13.5, gap: 1 });
    expect(broken[gap - 1].t).toBe(9.5);
    expect(broken[gap + 1].t).toBe(16.9);
    // No value of any series lies inside the pause.
    expect(broken.filter((r) => r.t > 10.5 && r.t < 16.5 && !isGap(r))).toEqual([]);
    // Without pauses, the rows are as they were.
    expect(breakAtPauses(rows, [])).toBe(rows);
  });

  it("leaves out a row inside a pause", () => {
    const stray = [...rows.slice(0, 10), { t: 12, "put ops/s": 1 }, ...rows.slice(10)];
    expect(breakAtPauses(stray, pausesOf(timeline)).some((r) => r.t === 12)).toBe(false);
  });

  it("keeps the gap row when a long series is downsampled", () => {
    const long = Array.from({ length: 5000 }, (_, i) => ({ t: i < 2500 ? i : i + 100, "put ops/s": 1000 }));
    const broken = breakAtPauses(long, [{ from: 2500, to: 2600, reason: "controller_gone", text: "" }]) as Array<Record<string, number>>;
    const drawn = downsampleRows(broken, 300, "t", ["put ops/s"]);
    expect(drawn.length).toBeLessThan(400);
    expect(drawn.filter(isGap)).toEqual([{ t: 2550, gap: 1 }]);
  });

  it("keeps the other shards' seconds over one shard's pause, and shades it with the shard", () => {
    const shardPause = [{ from: 10.5, to: 16.5, reason: "taken_over", text: "shard 1/2 paused", shard: "1/2" }];
    const merged = [...rows.slice(0, 10), { t: 12, "put ops/s": 1500 }, ...rows.slice(10)];
    expect(breakAtPauses(merged, shardPause)).toBe(merged);
    expect(pauseWindows(shardPause, [0, 20])[0].label).toBe("shard 1/2 paused: taken over");
  });

  it("shades each pause with why, clipped to the chart's span", () => {
    const pauses = pausesOf(timeline);
    expect(pauseWindows(pauses, [0, 12])).toEqual([
      { id: 0, kind: "pause", x1: 10.5, x2: 12, label: "paused: stopped", title: "paused 6.0 s (interrupted)" },
    ]);
    expect(pauseWindows(pauses, [20, 30])).toEqual([]);
  });
});
