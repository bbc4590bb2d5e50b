// The spans in which a run (or a shard of it) did not run — stopped and resumed, paused
// while its controller was gone, waiting to be taken over — as the timeline reports
// them: a chart's lines break over each (a row with no value where the pause is, so no
// series is drawn across it) and the span is shaded with its reason.
import type { Timeline } from "../api/types";
import type { TimeWindow } from "./bucket-index";

export interface PauseSpan {
  from: number;
  to: number;
  /** `interrupted`, `killed`, `controller_gone`, `taken_over`, `barrier_wait`. */
  reason: string;
  text: string;
  /** In a merged run, the shard that paused (`1/2`): the others went on, so its pause
   * is shaded but breaks no line. */
  shard?: string | null;
}

/** A row that stands for a pause: no series has a value in it. */
export type GapRow = { t: number; gap: 1 };

const REASONS: Record<string, string> = {
  interrupted: "stopped",
  killed: "killed",
  controller_gone: "controller gone",
  taken_over: "taken over",
  barrier_wait: "barrier wait",
};

/** The pauses of a run's timeline, in time order. */
export function pausesOf(timeline?: Timeline | null): PauseSpan[] {
  return (timeline?.entries ?? [])
    .filter((e) => e.kind === "pause" && e.until_t_s != null)
    .map((e) => ({ from: e.t_s, to: e.until_t_s as number, reason: e.reason ?? "interrupted", text: e.text, shard: e.shard ?? null }))
    .sort((a, b) => a.from - b.from);
}

/**
 * `rows` (in time order, each at `t`) with a gap row in the middle of every pause that
 * falls between two of them, so a line stops where the run stopped and starts again
 * where it went on; rows inside a pause are left out (none is recorded there). Only
 * pauses of the whole run: in a merged run, one shard's pause leaves the others' rows.
 */
export function breakAtPauses<T extends { t: number }>(rows: T[], all: PauseSpan[]): Array<T | GapRow> {
  // A shard's pause is time the other shards went on: their seconds stay.
  const pauses = all.filter((p) => !p.shard);
  if (!pauses.length) return rows;
  const out: Array<T | GapRow> = [];
  const inside = (t: number) => pauses.some((p) => t > p.from && t < p.to);
  let last: number | undefined;
  for (const r of rows) {
    if (inside(r.t)) continue;
    if (last != null) {
      for (const p of pauses) if (p.from >= last && p.to <= r.t) out.push({ t: (p.from + p.to) / 2, gap: 1 });
    }
    out.push(r);
    last = r.t;
  }
  return out;
}

/** The shaded windows of the pauses that overlap `[from, to]`, labelled with why. */
export function pauseWindows(pauses: PauseSpan[], span?: [number, number] | null): TimeWindow[] {
  const [from, to] = span ?? [-Infinity, Infinity];
  return pauses
    .filter((p) => p.to > from && p.from < to)
    .map((p, i) => ({
      id: i,
      kind: "pause" as const,
      x1: Math.max(p.from, from),
      x2: Math.min(p.to, to),
      label: `${p.shard ? `shard ${p.shard} ` : ""}paused: ${REASONS[p.reason] ?? p.reason}`,
      title: p.text,
    }));
}

/** Whether a row is a pause's gap row. */
export function isGap(row: object): row is GapRow {
  return (row as { gap?: unknown }).gap === 1;
}
