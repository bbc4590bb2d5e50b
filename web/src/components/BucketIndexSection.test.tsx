// The "Bucket index" section: absent for a run without index data, and for a tracked
// run its buckets, reshards, stalls (with their links) and polling cost written out.
import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { IndexReport, SummaryRow } from "../api/types";
import { BucketIndexSection } from "./BucketIndexSection";

afterEach(cleanup);

const base = {
  section: "round",
  round: 1,
  phase: "write",
  op: "put",
  objects_at_start: 0,
  started_at: "2026-11-22T10:00:03Z",
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
} as SummaryRow;

const writePhase = { section: "round" as const, round: 2, index: 0, name: "write" };

describe("bucket index section", () => {
  it("is absent when the run's index was not tracked and nothing stalled", () => {
    const { container } = render(<BucketIndexSection report={{ reshards: [], stalls: [], polling: null }} rows={[base]} />);
    expect(container.innerHTML).toBe("");
  });

  it("lists reshards and stalls with their links, and the polling cost", () => {
    const rows: SummaryRow[] = [
      { ...base, index_at_start: [{ bucket: "b", shards: 11, objects: 0, resharding: false }] },
      { ...base, round: 2, index_at_end: [{ bucket: "b", shards: 23, objects: 1500, resharding: false }] },
    ];
    const report: IndexReport = {
      reshards: [
        {
          id: 12,
          bucket: "b",
          from_shards: 11,
          to_shards: 23,
          objects: 1100,
          start_t_s: 8,
          end_t_s: 10,
          start: { phase: writePhase, interval: 0 },
          end: { phase: writePhase, interval: 2 },
          stalls: [],
        },
      ],
      stalls: [
        {
          id: 14,
          phase: writePhase,
          first_interval: 1,
          last_interval: 3,
          start_t_s: 9,
          end_t_s: 12,
          min_write_ops_per_sec: 0,
          median_write_ops_per_sec: 950,
          max_write_p99_us: 2_000_000,
          median_write_p99_us: 9_000,
          finished_writes: 40,
          held_writes: 16,
          longest_write_us: 45_100_000,
          throughput: true,
          latency: true,
          reshard: 12,
        },
      ],
      polling: { polls: 24, failures: 0, buckets: 1, p50_ms: 4.7, p99_ms: 32.1, max_ms: 40 },
    };
    render(<BucketIndexSection report={report} rows={rows} />);
    const buckets = screen.getByTestId("index-buckets");
    expect(within(buckets).getAllByRole("cell").map((c) => c.textContent)).toEqual(["b", "11", "23", "1,500", "1"]);
    const reshard = screen.getByTestId("reshard-row");
    expect(reshard.textContent).toContain("11 → 23");
    expect(reshard.textContent).toContain("round 2 · write, seconds 0–2 (t = 8.0–10.0 s)");
    // Linked from the stall's side only: still shown on the reshard.
    expect(reshard.textContent).toContain("round 2 · write, seconds 1–3");
    const stall = screen.getByTestId("stall-row");
    expect(stall.textContent).toContain("3 s");
    expect(stall.textContent).toContain("0.0 ops/s (950 ops/s)");
    expect(stall.textContent).toContain("2.00 s (9.00 ms)");
    expect(stall.textContent).toContain("b: reshard 11→23 shards");
    // The writes the reshard held, on the stall and beside the reshard it is linked to.
    expect(within(stall).getByTestId("stall-held").textContent).toBe("16 writes held, the longest 45.10 s");
    expect(reshard.textContent).toContain("seconds 1–3 (t = 9.0–12.0 s): 16 writes held, the longest 45.10 s");
    expect(screen.getByTestId("index-polling").textContent).toContain("Polled the index 24 times for 1 bucket, none failed");
    expect(screen.queryByTestId("no-reshards")).toBeNull();
  });

  it("shows the stalls of a run whose index was not tracked, without claiming it never resharded", () => {
    const stall = {
      id: 3,
      phase: writePhase,
      first_interval: 5,
      last_interval: 5,
      start_t_s: 20,
      end_t_s: 21,
      min_write_ops_per_sec: 10,
      median_write_ops_per_sec: 900,
      max_write_p99_us: 50_000,
      median_write_p99_us: 9_000,
      throughput: true,
      latency: false,
      reshard: null,
    };
    render(<BucketIndexSection report={{ reshards: [], stalls: [stall], polling: null }} rows={[base]} />);
    expect(screen.getByTestId("index-not-tracked")).toBeTruthy();
    expect(screen.queryByTestId("no-reshards")).toBeNull();
    expect(screen.getByTestId("stall-row").textContent).toContain("round 2 · write, second 5");
    // Recorded before held writes were counted: no figure for them.
    expect(screen.getByTestId("stall-held").textContent).toBe("none counted");
  });

  it("says so when a tracked run never resharded or stalled", () => {
    const rows: SummaryRow[] = [
      {
        ...base,
        index_at_start: [{ bucket: "b", shards: 211, objects: 0, resharding: false }],
        index_at_end: [{ bucket: "b", shards: 211, objects: 900, resharding: false }],
      },
    ];
    render(<BucketIndexSection report={{ reshards: [], stalls: [], polling: null }} rows={rows} />);
    expect(screen.getByTestId("no-reshards").textContent).toContain("No reshard");
    expect(screen.getByTestId("no-stalls").textContent).toContain("No write stall");
  });
});
