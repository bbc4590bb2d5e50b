// The per-agent breakdown of a merged run: one row per shard and operation, the
// slowest p99 of each operation marked, nothing for a run of one process.
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { MergedPart } from "../api/types";
import { ShardsSection, shardRows } from "./ShardsSection";

const latency = (p99: number) => ({ min: 1, mean: p99 / 2, p50: p99 / 3, p90: p99 / 2, p99, p999: p99, max: p99 * 2 });

function part(index: number, putP99: number): MergedPart {
  return {
    run_id: `run-${index}`,
    shard: { index, count: 3 },
    host: `host-${index}`,
    status: "completed",
    started_at: "2026-11-25T10:00:00Z",
    totals: [
      { op: "put", ops: 1000, ops_per_sec: 100, duration_s: 10, errors: 0, bytes: 0, mib_per_sec: 0, latency_us: latency(putP99) },
      { op: "get", ops: 500, ops_per_sec: 50, duration_s: 10, errors: 0, bytes: 0, mib_per_sec: 0, latency_us: latency(2000) },
    ],
  } as unknown as MergedPart;
}

afterEach(cleanup);

describe("per-agent breakdown", () => {
  it("marks the shard whose p99 is the slowest of each operation", () => {
    const rows = shardRows([part(0, 1000), part(1, 90_000), part(2, 1200)]);
    expect(rows).toHaveLength(6);
    const slowPuts = rows.filter((r) => r.op === "put" && r.slowest).map((r) => r.shard);
    expect(slowPuts).toEqual(["1/3"]);
  });

  it("shows a table for a merged run and nothing for a run of one process", () => {
    const { rerender } = render(<ShardsSection parts={[part(0, 1000), part(1, 90_000)]} />);
    expect(screen.getAllByTestId("per-agent-row")).toHaveLength(4);
    expect(screen.getByTestId("per-agent-table").textContent).toContain("host-1");
    rerender(<ShardsSection parts={[]} />);
    expect(screen.queryByTestId("per-agent-table")).toBeNull();
  });
});
