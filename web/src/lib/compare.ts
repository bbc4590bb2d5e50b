// Runs side by side, aligned by where they are in the workload (section, round, phase,
// operation), never by wall clock: the rounds overlaid for the compare page's charts,
// and each phase's rounds added up for its endpoints table. (How runs differ is judged
// by the server: ./verdicts.)
import type { SummaryRow } from "../api/types";

/** Totals of one phase × operation over all its rounds (or its single occurrence). */
export interface Aggregate {
  phase: string;
  op: string;
  section: string;
  ops: number;
  duration_s: number;
  bytes: number;
  errors: number;
  ops_per_sec: number;
  mib_per_sec: number;
  /** The worst (highest) per-round value: percentiles cannot be averaged. */
  worst_p50_us: number;
  worst_p99_us: number;
  worst_p999_us: number;
  /** The slowest single operation: where writes blocked by a reshard show. */
  max_us: number;
}

/** The key of a phase × operation in `aggregate`'s map (its rounds together). */
export function aggregateKey(r: { section: string; phase: string; op: string }): string {
  return `${r.section === "round" ? "round" : r.section}|${r.phase}|${r.op}`;
}

/** Each phase × operation of `rows` with its rounds added up: operations over total
 * time, the worst round's percentiles. */
export function aggregate(rows: SummaryRow[]): Map<string, Aggregate> {
  const out = new Map<string, Aggregate>();
  for (const r of rows) {
    const key = aggregateKey(r);
    const a = out.get(key) ?? {
      phase: r.phase,
      op: r.op,
      section: r.section,
      ops: 0,
      duration_s: 0,
      bytes: 0,
      errors: 0,
      ops_per_sec: 0,
      mib_per_sec: 0,
      worst_p50_us: 0,
      worst_p99_us: 0,
      worst_p999_us: 0,
      max_us: 0,
    };
    a.ops += r.ops;
    a.duration_s += r.duration_s;
    a.bytes += r.bytes;
    a.errors += r.errors;
    a.worst_p50_us = Math.max(a.worst_p50_us, r.latency_us.p50);
    a.worst_p99_us = Math.max(a.worst_p99_us, r.latency_us.p99);
    a.worst_p999_us = Math.max(a.worst_p999_us, r.latency_us.p999);
    a.max_us = Math.max(a.max_us, r.latency_us.max);
    out.set(key, a);
  }
  for (const a of out.values()) {
    a.ops_per_sec = a.duration_s > 0 ? a.ops / a.duration_s : 0;
    a.mib_per_sec = a.duration_s > 0 ? a.bytes / 1048576 / a.duration_s : 0;
  }
  return out;
}

/** Rounds chart rows for several runs: `{round, "<run> · <phase> · <op>": value}`. */
export function overlayRounds(
  runs: Array<{ id: string; label: string; rows: SummaryRow[] }>,
  metric: (r: SummaryRow) => number,
): { data: Array<Record<string, number>>; series: Array<{ name: string; run: number; phase: string; op: string }> } {
  const byRound = new Map<number, Record<string, number>>();
  const series: Array<{ name: string; run: number; phase: string; op: string }> = [];
  const seen = new Set<string>();
  runs.forEach((run, i) => {
    for (const r of run.rows) {
      if (r.section !== "round" || r.round == null) continue;
      const name = `${run.label} · ${r.phase} · ${r.op}`;
      if (!seen.has(name)) {
        seen.add(name);
        series.push({ name, run: i, phase: r.phase, op: r.op });
      }
      const row = byRound.get(r.round) ?? { round: r.round };
      row[name] = metric(r);
      byRound.set(r.round, row);
    }
  });
  return { data: [...byRound.values()].sort((a, b) => a.round - b.round), series };
}

/** One panel of the compare page's rounds charts: one round phase, every run's lines. */
export interface ComparePanel {
  phase: string;
  overlay: ReturnType<typeof overlayRounds>;
}

/**
 * The runs' rounds, one panel per round phase (in the order the phases first appear).
 * Within a panel each operation occurs once per run, so a line is told by its
 * operation's colour and its run's marker, and the dash stays the percentile's.
 */
export function comparePanels(
  runs: Array<{ id: string; label: string; rows: SummaryRow[] }>,
  metric: (r: SummaryRow) => number,
): ComparePanel[] {
  const phases: string[] = [];
  for (const run of runs) for (const r of run.rows) if (r.section === "round" && !phases.includes(r.phase)) phases.push(r.phase);
  return phases.map((phase) => ({
    phase,
    overlay: overlayRounds(
      runs.map((run) => ({ ...run, rows: run.rows.filter((r) => r.phase === phase) })),
      metric,
    ),
  }));
}

/**
 * The overlay with every run's values divided by the first run's (same phase,
 * operation and round): 1 is "as run A", 1.25 is a quarter more. A value whose
 * baseline is missing or zero is left out rather than drawn as infinity.
 */
export function normaliseOverlay(overlay: ReturnType<typeof overlayRounds>): ReturnType<typeof overlayRounds> {
  const baseOf = new Map(overlay.series.filter((s) => s.run === 0).map((s) => [`${s.phase} · ${s.op}`, s.name]));
  const data = overlay.data.map((row) => {
    const out: Record<string, number> = { round: row.round };
    for (const s of overlay.series) {
      const base = row[baseOf.get(`${s.phase} · ${s.op}`) ?? ""];
      const value = row[s.name];
      if (value != null && base != null && base !== 0) out[s.name] = value / base;
    }
    return out;
  });
  return { data, series: overlay.series };
}
