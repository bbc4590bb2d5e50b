// A summary row for unit tests: every field a row has, set to plain values, the ones a
// test is about given.
import type { SummaryRow } from "../api/types";

export function summaryRow(p: Partial<SummaryRow> & { phase: string; op: SummaryRow["op"] }): SummaryRow {
  return {
    section: "round",
    round: 1,
    objects_at_start: 0,
    started_at: "2026-11-22T00:00:00Z",
    duration_s: 10,
    client_cpu_s: 1,
    ops: 1000,
    errors: 0,
    error_rate: 0,
    error_classes: {},
    ops_per_sec: 100,
    bytes: 1048576 * 10,
    mib_per_sec: 1,
    keys: 0,
    keys_per_sec: 0,
    latency_us: { min: 1, mean: 2, p50: 100, p90: 200, p99: 1000, p999: 2000, max: 3000 },
    ...p,
  } as SummaryRow;
}
