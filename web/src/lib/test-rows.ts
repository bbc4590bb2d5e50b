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

/** A PUT row of a step of the sweep or search `sweep`: 10 s asking `asked` a second and
 * sending (and answering) `sent`, p50 half of `p99` and p99.9 twice it. */
export function sweepStepRow(phase: string, sweep: string, asked: number, sent: number, p99: number, p: Partial<SummaryRow> = {}): SummaryRow {
  return summaryRow({
    phase,
    op: "put",
    ops: Math.round(sent * 10),
    ops_per_sec: sent,
    latency_us: { min: 0, mean: 0, p50: p99 / 2, p90: p99, p99, p999: p99 * 2, max: p99 * 2 },
    open_loop: { asked_per_sec: asked, sent_per_sec: sent, backlog: 0 },
    sweep,
    ...p,
  });
}
