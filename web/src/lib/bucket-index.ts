// The bucket-index story of a run (Ceph RGW, or the embedded target imitating it) in
// chart form: the shard count as a step series across rounds or per second, the rounds
// in which a reshard or a write stall happened, and the time windows they cover.
import type {
  BucketIndex,
  EventPosition,
  IndexReport,
  IntervalRecord,
  PhaseRef,
  ReshardEvent,
  ReshardRecord,
  StallEvent,
  StallRecord,
  SummaryRow,
} from "../api/types";
import { EVENT_COLOURS } from "./palette";
import { fmtLatency } from "./format";
import { placeLabel } from "./rounds";

/** Key of a bucket's shard count in chart rows. */
export function shardKey(bucket: string): string {
  return `index shards · ${bucket}`;
}

/** A shard line's name in a legend: "index shards", or per bucket when there are several. */
export function shardName(bucket: string, buckets: string[]): string {
  return buckets.length > 1 ? `${bucket}: index shards` : "index shards";
}

/** Buckets named in index snapshots, in the order they first appear. */
export function indexBuckets(snapshots: Iterable<BucketIndex[] | null | undefined>): string[] {
  const out: string[] = [];
  for (const snapshot of snapshots) {
    for (const b of snapshot ?? []) if (!out.includes(b.bucket)) out.push(b.bucket);
  }
  return out;
}

/** Whether a run has anything to say about its bucket index: snapshots, reshards, stalls or polling. */
export function hasIndexData(report: IndexReport | null | undefined, rows: SummaryRow[]): boolean {
  if (report && (report.reshards.length || report.stalls.length || report.polling)) return true;
  return rows.some((r) => r.index_at_start?.length || r.index_at_end?.length);
}

/** How far left of the first round and right of the last the rounds chart's x axis reaches. */
export const ROUND_EDGE = 0.2;

/**
 * The shard count across rounds, one key per bucket, for a step line (`stepAfter`): at
 * the chart's left edge the shards at the first round's start, then at each round the
 * shards at that round's end, held to the right edge. A reshard during round N thus
 * shows as a step at round N.
 */
export function roundShardRows(
  rows: SummaryRow[],
  keyOf: (bucket: string) => string = shardKey,
): { data: Array<Record<string, number>>; buckets: string[] } {
  const byRound = new Map<number, { start?: BucketIndex[]; end?: BucketIndex[] }>();
  for (const r of rows) {
    if (r.section !== "round" || r.round == null) continue;
    const entry = byRound.get(r.round) ?? {};
    if (!entry.start && r.index_at_start?.length) entry.start = r.index_at_start;
    if (r.index_at_end?.length) entry.end = r.index_at_end;
    byRound.set(r.round, entry);
  }
  const rounds = [...byRound.keys()].sort((a, b) => a - b);
  const buckets = indexBuckets(rounds.flatMap((n) => [byRound.get(n)!.start, byRound.get(n)!.end]));
  if (!buckets.length) return { data: [], buckets };
  const point = (round: number, snapshot: BucketIndex[] | undefined) => {
    const row: Record<string, number> = { round };
    for (const b of snapshot ?? []) row[keyOf(b.bucket)] = b.shards;
    return row;
  };
  const first = rounds[0];
  const last = rounds[rounds.length - 1];
  const data = [point(first - ROUND_EDGE, byRound.get(first)!.start ?? byRound.get(first)!.end)];
  for (const n of rounds) data.push(point(n, byRound.get(n)!.end ?? byRound.get(n)!.start));
  data.push({ ...data[data.length - 1], round: last + ROUND_EDGE });
  return { data, buckets };
}

/**
 * Ticks of the shard axis: 0 up to a round number a little above `max`, in at most
 * `intervals` steps of 1, 2 or 5 times a power of ten, so the line never hugs the top.
 */
export function shardTicks(max: number, intervals = 4): number[] {
  const top = Math.max(max * 1.05, 1);
  const magnitude = 10 ** Math.floor(Math.log10(top / intervals));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s * intervals >= top) ?? 10 * magnitude;
  const n = Math.ceil(top / Math.max(step, 1));
  return Array.from({ length: n + 1 }, (_, i) => i * Math.max(step, 1));
}

/**
 * Several runs' shard lines across rounds for one chart: rows keyed by run and bucket,
 * and one series per run × bucket named by the run's tag (`#1 index shards`).
 */
export function overlayShards(runs: Array<{ label: string; tag: string; rows: SummaryRow[] }>): {
  data: Array<Record<string, number>>;
  series: Array<{ key: string; name: string; run: number }>;
} {
  const tables: Array<Array<Record<string, number>>> = [];
  const series: Array<{ key: string; name: string; run: number }> = [];
  runs.forEach((run, i) => {
    const keyOf = (bucket: string) => `${run.label} · ${bucket} index shards`;
    const shards = roundShardRows(run.rows, keyOf);
    tables.push(shards.data);
    for (const b of shards.buckets) {
      series.push({ key: keyOf(b), name: `${run.tag} ${shards.buckets.length > 1 ? `${b}: ` : ""}index shards`, run: i });
    }
  });
  return { data: mergeByX("round", ...tables), series };
}

/** Chart rows with the same x merged into one, sorted by x. */
export function mergeByX(xKey: string, ...tables: Array<Array<Record<string, number>>>): Array<Record<string, number>> {
  const byX = new Map<number, Record<string, number>>();
  for (const table of tables) {
    for (const row of table) byX.set(row[xKey], { ...byX.get(row[xKey]), ...row });
  }
  return [...byX.values()].sort((a, b) => a[xKey] - b[xKey]);
}

/** The tooltip's name for an x of the rounds chart, edges included. */
export function roundLabel(x: number): string {
  if (Number.isInteger(x)) return `round ${x}`;
  const nearest = Math.round(x);
  return x < nearest ? `start of round ${nearest}` : `end of round ${nearest}`;
}

/** Where a phase started, in seconds from the run's start (the clock of interval `t_s`). */
export interface PhaseStart {
  section: PhaseRef["section"];
  round: number | null;
  name: string;
  t0: number;
}

/** Each phase's start from the summary rows, in run order; empty without the run's start time. */
export function phaseStarts(rows: SummaryRow[], runStartedAt?: string | null): PhaseStart[] {
  const origin = runStartedAt ? Date.parse(runStartedAt) : NaN;
  if (!Number.isFinite(origin)) return [];
  const out: PhaseStart[] = [];
  const seen = new Set<string>();
  for (const r of rows) {
    const key = `${r.section}|${r.round ?? ""}|${r.phase}`;
    const t0 = (Date.parse(r.started_at) - origin) / 1000;
    if (seen.has(key) || !Number.isFinite(t0)) continue;
    seen.add(key);
    out.push({ section: r.section, round: r.round ?? null, name: r.phase, t0 });
  }
  return out.sort((a, b) => a.t0 - b.t0);
}

/** The phase running at `t` (the last one started by then), or null before the first. */
function phaseAt(starts: PhaseStart[], t: number): PhaseStart | null {
  let found: PhaseStart | null = null;
  for (const s of starts) if (s.t0 <= t) found = s;
  return found;
}

function roundOf(place: { section: string; round?: number | null } | null): number | null {
  return place?.section === "round" && place.round != null ? place.round : null;
}

/**
 * The round in which a reshard's new shard count was first seen (by its position, or
 * by time when it was seen between phases); when that was outside the rounds, the
 * round it started in; null when neither end lies in a round.
 */
export function reshardRound(r: ReshardEvent, starts: PhaseStart[]): number | null {
  const seen = r.end?.phase ?? phaseAt(starts, r.end_t_s);
  const began = r.start?.phase ?? phaseAt(starts, r.start_t_s);
  return roundOf(seen) ?? roundOf(began);
}

function fmtOps(v: number): string {
  return Math.round(v).toLocaleString("en-US");
}

export function reshardText(r: ReshardEvent, withBucket = false): string {
  return `${withBucket ? `${r.bucket}: ` : ""}reshard ${r.from_shards}→${r.to_shards} shards`;
}

export function stallSeconds(s: StallEvent): number {
  return s.last_interval - s.first_interval + 1;
}

/**
 * The writes a stall held and the longest wait, in the CLI's words: `14 writes held, the
 * longest 24.31 s`; null when it held none (or was recorded before they were counted).
 */
export function stallHeldText(s: StallEvent): string | null {
  const held = s.held_writes ?? 0;
  if (held <= 0) return null;
  return `${held.toLocaleString("en-US")} write${held === 1 ? "" : "s"} held, the longest ${fmtLatency(s.longest_write_us ?? 0)}`;
}

/**
 * A stall in one line: `write stall 4 s, 0 ops/s vs median 950, p99 2.01 s vs median
 * 26.9 ms, 14 writes held, the longest 2.03 s`. Only figures for what happened: where
 * no write finished it says so rather than a p99 of 0 µs.
 */
export function stallText(s: StallEvent): string {
  const parts = [`write stall ${stallSeconds(s)} s`];
  if (s.throughput || !s.latency) parts.push(`${fmtOps(s.min_write_ops_per_sec)} ops/s vs median ${fmtOps(s.median_write_ops_per_sec)}`);
  if (s.max_write_p99_us <= 0) parts.push("no write finished");
  else if (s.latency) parts.push(`p99 ${fmtLatency(s.max_write_p99_us)} vs median ${fmtLatency(s.median_write_p99_us)}`);
  const held = stallHeldText(s);
  if (held) parts.push(held);
  return parts.join(", ");
}

/** A round in which the bucket index was resharded or writes stalled. */
export interface RoundMark {
  round: number;
  reshards: ReshardRecord[];
  stalls: StallRecord[];
  /** One line per event, for a tooltip: "reshard 11→23 shards", "write stall 4 s, …". */
  lines: string[];
}

export function markKind(m: RoundMark): "reshard" | "stall" | "reshard + stall" {
  if (m.reshards.length && m.stalls.length) return "reshard + stall";
  return m.reshards.length ? "reshard" : "stall";
}

/**
 * The phase a reshard is marked on: the one running when its new shard count was first
 * seen, or else the one it began in (the same choice as its round's).
 */
function reshardPhase(r: ReshardEvent, starts: PhaseStart[]): string | null {
  const seen = r.end?.phase ?? phaseAt(starts, r.end_t_s);
  const began = r.start?.phase ?? phaseAt(starts, r.start_t_s);
  return (roundOf(seen) != null ? seen : began)?.name ?? null;
}

/**
 * The rounds with reshards or stalls, ascending; events outside the rounds are left out.
 * With `phase`, only those of that round phase: a chart of one phase is marked with what
 * happened while it ran, not with what happened in the phase beside it.
 */
export function roundMarks(
  report: IndexReport | null | undefined,
  rows: SummaryRow[],
  runStartedAt?: string | null,
  phase?: string,
): RoundMark[] {
  if (!report) return [];
  const starts = phaseStarts(rows, runStartedAt);
  const withBucket = new Set(report.reshards.map((r) => r.bucket)).size > 1;
  const byRound = new Map<number, RoundMark>();
  const markOf = (round: number) => {
    const m = byRound.get(round) ?? { round, reshards: [], stalls: [], lines: [] };
    byRound.set(round, m);
    return m;
  };
  for (const r of report.reshards) {
    const round = reshardRound(r, starts);
    if (round == null || (phase != null && reshardPhase(r, starts) !== phase)) continue;
    const m = markOf(round);
    m.reshards.push(r);
    m.lines.push(reshardText(r, withBucket));
  }
  for (const s of report.stalls) {
    const round = roundOf(s.phase);
    if (round == null || (phase != null && s.phase.name !== phase)) continue;
    const m = markOf(round);
    m.stalls.push(s);
    m.lines.push(stallText(s));
  }
  return [...byRound.values()].sort((a, b) => a.round - b.round);
}

/** A round to point out on a rounds chart, drawn as a labelled line at its x. */
export interface RoundMarkSpec {
  round: number;
  /** Drawn on the chart: "reshard", "stall", "reshard + stall" (after a run's prefix). */
  text: string;
  /** For crowded charts: "R", "S", "R+S" (after a run's prefix). */
  short: string;
  /** The tooltip: the round, then what happened, one event a line. */
  title: string;
  colour: string;
  /** Which row of labels it sits in (one per run on the compare page). */
  row: number;
  kind: ReturnType<typeof markKind>;
}

/**
 * Round marks as a chart draws them, coloured by what happened; among several runs
 * (`run` given) each run's marks sit in a row of their own, prefixed with its tag.
 */
export function roundMarkSpecs(marks: RoundMark[], run?: { row: number; tag: string; label: string }): RoundMarkSpec[] {
  return marks.map((m) => {
    const kind = markKind(m);
    const short = kind === "reshard + stall" ? "R+S" : kind === "reshard" ? "R" : "S";
    const prefix = run ? `${run.tag} ` : "";
    return {
      round: m.round,
      text: prefix + kind,
      short: prefix + short,
      title: [`round ${m.round}${run ? `, ${run.label}` : ""}:`, ...m.lines].join("\n"),
      colour: m.stalls.length ? EVENT_COLOURS.stall : EVENT_COLOURS.reshard,
      row: run?.row ?? 0,
      kind,
    };
  });
}

function positionText(p: EventPosition): string {
  return `${placeLabel(p.phase)} · ${p.phase.name}, second ${p.interval}`;
}

function samePlace(a: PhaseRef, b: PhaseRef): boolean {
  return a.section === b.section && (a.round ?? null) === (b.round ?? null) && a.name === b.name;
}

/** When a reshard happened: phase and second(s) of the phase, and the run's clock. */
export function reshardWhen(r: ReshardEvent): string {
  const clock = `t = ${r.start_t_s.toFixed(1)}–${r.end_t_s.toFixed(1)} s`;
  if (r.start && r.end && samePlace(r.start.phase, r.end.phase)) {
    const { phase } = r.end;
    const seconds = r.start.interval === r.end.interval ? `second ${r.end.interval}` : `seconds ${r.start.interval}–${r.end.interval}`;
    return `${placeLabel(phase)} · ${phase.name}, ${seconds} (${clock})`;
  }
  if (!r.start && !r.end) return clock;
  const side = (p: EventPosition | null | undefined) => (p ? positionText(p) : "between phases");
  return `${side(r.start)} → ${side(r.end)} (${clock})`;
}

/** Where a stall happened: phase and seconds of the phase, and the run's clock. */
export function stallWhere(s: StallEvent): string {
  const seconds = s.first_interval === s.last_interval ? `second ${s.first_interval}` : `seconds ${s.first_interval}–${s.last_interval}`;
  return `${placeLabel(s.phase)} · ${s.phase.name}, ${seconds} (t = ${s.start_t_s.toFixed(1)}–${s.end_t_s.toFixed(1)} s)`;
}

/** The stalls linked to a reshard, from either side of the link. */
export function linkedStalls(r: ReshardRecord, stalls: StallRecord[]): Array<StallRecord | number> {
  const ids = new Set([...r.stalls, ...stalls.filter((s) => s.reshard === r.id).map((s) => s.id)]);
  return [...ids].sort((a, b) => a - b).map((id) => stalls.find((s) => s.id === id) ?? id);
}

/** Each bucket's shards at the first phase's start and the last phase's end, and its objects then. */
export function bucketTotals(
  rows: SummaryRow[],
  reshards: ReshardEvent[],
): Array<{ bucket: string; startShards?: number; endShards?: number; endObjects?: number; reshards: number }> {
  const first = rows.find((r) => r.index_at_start?.length)?.index_at_start ?? [];
  const last = [...rows].reverse().find((r) => r.index_at_end?.length)?.index_at_end ?? [];
  const buckets = indexBuckets([first, last, reshards.map((r) => ({ bucket: r.bucket, shards: 0, objects: 0, resharding: false }))]);
  return buckets.map((bucket) => ({
    bucket,
    startShards: first.find((b) => b.bucket === bucket)?.shards,
    endShards: last.find((b) => b.bucket === bucket)?.shards,
    endObjects: last.find((b) => b.bucket === bucket)?.objects,
    reshards: reshards.filter((r) => r.bucket === bucket).length,
  }));
}

/** A stretch of the per-second chart (x = seconds from the run's start) to shade. */
export interface TimeWindow {
  id: number;
  /** A pause: the run (or a shard of it) did not run (lib/pauses.ts). */
  kind: "reshard" | "stall" | "pause";
  x1: number;
  x2: number;
  /** Short, drawn on the chart: "reshard 11→23", "write stall". */
  label: string;
  /** In full, for the tooltip. */
  title: string;
}

/** Narrower windows are widened to this (seconds), so a quick reshard still shows. */
const MIN_WINDOW_S = 0.5;

/**
 * Reshard and stall windows overlapping `[from, to]`, clipped to it. A reshard covers
 * the polls around it (`start_t_s`..`end_t_s`), a stall its intervals.
 */
export function eventWindows(
  reshards: Array<ReshardEvent & { id: number }>,
  stalls: Array<StallEvent & { id: number }>,
  from: number,
  to: number,
): TimeWindow[] {
  const withBucket = new Set(reshards.map((r) => r.bucket)).size > 1;
  const out: TimeWindow[] = [];
  const add = (id: number, kind: TimeWindow["kind"], start: number, end: number, label: string, title: string) => {
    if (end < from || start > to) return;
    let x1 = Math.max(start, from);
    let x2 = Math.min(end, to);
    if (x2 - x1 < MIN_WINDOW_S) {
      const mid = (x1 + x2) / 2;
      x1 = Math.max(from, mid - MIN_WINDOW_S / 2);
      x2 = Math.min(to, mid + MIN_WINDOW_S / 2);
    }
    out.push({ id, kind, x1, x2, label, title });
  };
  for (const r of reshards) {
    const bucket = withBucket ? `${r.bucket}: ` : "";
    add(r.id, "reshard", r.start_t_s, r.end_t_s, `${bucket}reshard ${r.from_shards}→${r.to_shards}`, reshardText(r, withBucket));
  }
  for (const s of stalls) add(s.id, "stall", s.start_t_s, s.end_t_s, "write stall", stallText(s));
  return out;
}

function samePhase(p: PhaseRef, c: { section: string; round: number | null; phase: string }): boolean {
  return p.section === c.section && (p.round ?? null) === c.round && p.name === c.phase;
}

/** From the first interval's start to the last one's end (seconds from the run's start). */
export function phaseSpan(intervals: IntervalRecord[]): [number, number] | undefined {
  if (!intervals.length) return undefined;
  const from = intervals.reduce((m, r) => Math.min(m, r.t_s), Infinity);
  const to = intervals.reduce((m, r) => Math.max(m, r.t_s + r.duration_s), -Infinity);
  return [from, to];
}

/**
 * The windows to shade on the per-second chart of one phase × round: reshards whose
 * time overlaps the phase's intervals, and the phase's own stalls.
 */
export function phaseWindows(
  report: IndexReport | null | undefined,
  choice: { section: string; round: number | null; phase: string },
  intervals: IntervalRecord[],
): TimeWindow[] {
  const span = phaseSpan(intervals);
  if (!report || !span) return [];
  const [from, to] = span;
  const stalls = report.stalls.filter((s) => samePhase(s.phase, choice));
  return eventWindows(report.reshards, stalls, from, to);
}
