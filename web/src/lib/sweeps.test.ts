import { describe, expect, it } from "vitest";
import { sweepStepRow } from "./test-rows";
import { curvePoints, knee, latencyBounds, sweepCurves } from "./sweeps";


describe("sweep curves", () => {
  it("puts a sweep's steps in the order of the rate asked and finds its knee", () => {
    const rows = [sweepStepRow("put@2000", "put", 2000, 1995, 5600), sweepStepRow("put@1000", "put", 1000, 1000, 2700), sweepStepRow("put@4000", "put", 4000, 3590, 211_300), sweepStepRow("other", "put", 10, 10, 1, { sweep: null })];
    const curves = sweepCurves(rows);
    expect(curves).toHaveLength(1);
    expect(curves[0].points.map((p) => p.phase)).toEqual(["put@1000", "put@2000", "put@4000"]);
    expect(curves[0].points[2].achieved).toBeCloseTo(3590, 0);
    expect(knee(curves[0])?.phase).toBe("put@2000");
  });

  it("leaves out a step stopped before its end and ties a search to its curve", () => {
    const rows = [sweepStepRow("put@100", "put", 100, 100, 20_000), sweepStepRow("put@200", "put", 200, 100, 20_000, { interrupted: true })];
    const search = { section: "round", round: 1, phase: "put", slo: ["put.p99 < 50ms"], sustainable_rate: 100, bracket: [100, null], confirmed: false, steps: 1 } as const;
    const [curve] = sweepCurves(rows, [search as never]);
    expect(curve.points.map((p) => p.phase)).toEqual(["put@100"]);
    expect(curve.search?.sustainable_rate).toBe(100);
  });

  it("lists a voided step of a search but draws it on no curve and takes no knee from it", () => {
    // find@200 ran on two shards of three before one restarted: a third short of its rate.
    const rows = [sweepStepRow("find@100", "find", 100, 100, 20_000), sweepStepRow("find@200", "find", 200, 133, 20_000), sweepStepRow("find@200#2", "find", 200, 200, 21_000), sweepStepRow("find@400", "find", 400, 400, 22_000)];
    const search = { section: "round", round: 1, phase: "find", slo: ["put.p99 < 50ms"], sustainable_rate: 400, bracket: [400, null], confirmed: false, steps: 3, voided: ["find@200"] } as const;
    const [curve] = sweepCurves(rows, [search as never]);
    expect(curve.points.map((p) => [p.phase, p.voided])).toEqual([
      ["find@100", false],
      ["find@200", true],
      ["find@200#2", false],
      ["find@400", false],
    ]);
    expect(curvePoints(curve).map((p) => p.phase)).toEqual(["find@100", "find@200#2", "find@400"]);
    expect(knee(curve)?.phase).toBe("find@400");
    // Unmarked, the short step would read as the store falling behind at 200/s.
    const [bare] = sweepCurves(rows);
    expect(knee(bare)?.phase).toBe("find@100");
  });

  it("reads the latency bounds of SLOs and skips the others", () => {
    expect(latencyBounds(["put.p99 < 50ms", "errors.rate < 1%", "get.p99.9 <= 2s", "put.p50 < 800us"])).toEqual([
      { op: "put", figure: "p99", us: 50_000, text: "put.p99 < 50ms" },
      { op: "get", figure: "p99.9", us: 2_000_000, text: "get.p99.9 <= 2s" },
      { op: "put", figure: "p50", us: 800, text: "put.p50 < 800us" },
    ]);
  });
});
