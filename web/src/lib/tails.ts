// Tails that percentiles hide: how many operations of a phase took each of the run's
// marks or longer (1 s and 10 s unless the workload's `tail_marks` says). The phases
// table gives each mark a column of its own, when some phase had any.
import type { SummaryRow } from "../api/types";

/** Every mark some row was counted at, ascending; none when no row had an operation
 * at any mark (a table of fast phases stays as it was). */
export function tailMarks(rows: SummaryRow[]): number[] {
  const counted = rows.flatMap((r) => r.latency_us.slower_than ?? []);
  if (!counted.some((c) => c.count > 0)) return [];
  return [...new Set(counted.map((c) => c.mark_us))].sort((a, b) => a - b);
}

/** The row's count at `markUs`; undefined where it was not counted there (a run
 * counted at other marks). */
export function tailCount(row: SummaryRow, markUs: number): number | undefined {
  return row.latency_us.slower_than?.find((c) => c.mark_us === markUs)?.count;
}

/** `1 s`, `1.5 s`, `500 ms`, `2.25 ms`: a mark exactly, trailing zeros dropped. */
export function markText(us: number): string {
  const [per, unit] = us >= 1_000_000 ? [1_000_000, "s"] : us >= 1000 ? [1000, "ms"] : [1, "µs"];
  // Rounded to the microsecond so a decimal step never shows (1.1 s, not 1.0999999 s).
  return `${Number((us / per).toFixed(Math.log10(per)))} ${unit}`;
}

/** A mark as a name's part, as the server writes it (`over_1s`, `over_500ms`): whole
 * seconds in `s`, whole milliseconds in `ms`, else `us`. */
export function markName(us: number): string {
  if (us % 1_000_000 === 0) return `${us / 1_000_000}s`;
  if (us % 1000 === 0) return `${us / 1000}ms`;
  return `${us}us`;
}
