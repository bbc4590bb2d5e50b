// The state of a watched run, folded from its event stream. Events are applied once
// each (by id), so a reconnect that replays events changes nothing; the per-second
// series keep a bounded window for drawing.
import type { PauseSpan } from "./pauses";
import type {
  BucketIndex,
  CleanupEvent,
  EndpointEvent,
  EndpointOps,
  EventData,
  EventKind,
  IntervalRecord,
  KeysEvent,
  PhaseRef,
  ReshardEvent,
  RunStatus,
  StallEvent,
  ThresholdsSoFar,
} from "../api/types";
import { shardKey } from "./bucket-index";
import { fmtDuration } from "./format";
import { niceTimeEnd } from "./heatmap";
import { type EpochMark, epochMarks } from "./keys";
import { PERCENTILES, PERCENTILE_DASH, opColour } from "./palette";
import { ASKED_KEY, askedSeries, lagKey, lagSeries } from "./schedule";

export interface LivePoint {
  /** Where the point sits on the time axis: its interval's middle, in seconds from the
   * run's start (a heatmap's column of that second covers the same x). */
  t: number;
  /** The end of its interval. */
  end: number;
  /** Its interval's number in its phase, and the phase's section, round and name. */
  interval: number;
  place: string;
  phase: string;
  /** Its series, and (`epoch`) the epoch an `epochs` phase's reads were in when the
   * interval ended. */
  [series: string]: number | string;
}

export interface LiveState {
  lastId: number;
  runId?: string;
  phases?: number;
  position?: number;
  phase?: PhaseRef;
  progress?: EventData<"interval">["progress"];
  objects?: number;
  status?: RunStatus;
  error?: string | null;
  warnings: string[];
  /**
   * One point per interval: `<op> ops/s`, `<op> MiB/s`, `<op> p50`, ... (ms), and
   * `index shards · <bucket>` when the bucket index is tracked.
   */
  points: LivePoint[];
  ops: string[];
  /** Operations of open-loop phases, whose points say how late requests left. */
  lagOps: string[];
  /** The open-loop phase that started last and the rate it asked (its points carry it),
   * and whether any point so far did. */
  asked?: { phase: PhaseRef; rate: number };
  anyAsked: boolean;
  errorClasses: string[];
  /** The bucket index as last polled, and every bucket seen so far. */
  index: BucketIndex[];
  buckets: string[];
  /** The latest reshards and stalls (ids are the events' ids). */
  reshards: Array<ReshardEvent & { id: number }>;
  stalls: Array<StallEvent & { id: number }>;
  /** Cleanup's progress once it started (after the last phase). */
  cleanup?: CleanupEvent;
  /** The keys the latest phase reading a listing or a key file takes (sent before it
   * starts), and the epoch of the running phase's latest interval. */
  keys?: KeysEvent;
  epoch?: number;
  /** A run that drives several endpoints: their URLs (from its start), what each did in
   * the running phase's latest interval, and when each went down or came back. */
  endpoints: string[];
  endpointOps?: EndpointOps[];
  endpointEvents: Array<EndpointEvent & { id: number }>;
  /** When the run did not run (a resume says so as it starts): charts break there. */
  pauses: PauseSpan[];
  /** A long step under way without requests of its own (the keys a phase reads being
   * listed, an audit comparing), as last told; cleared when it is done. */
  step?: EventData<"step">;
  /** The running phase's thresholds judged on what it measured so far, as last told;
   * cleared when the next phase starts. */
  thresholds?: ThresholdsSoFar;
}

export const MAX_LIVE_POINTS = 7200;
export const MAX_LIVE_MARKS = 200;

export function initialLive(): LiveState {
  return {
    lastId: -1,
    warnings: [],
    points: [],
    ops: [],
    lagOps: [],
    anyAsked: false,
    errorClasses: [],
    index: [],
    buckets: [],
    reshards: [],
    stalls: [],
    endpoints: [],
    endpointEvents: [],
    pauses: [],
  };
}

export interface RawEvent {
  id: number;
  name: string;
  data: unknown;
}

/**
 * What one chart point stands for: a second as recorded, or — for a phase too long to
 * draw second by second — the run of one-second intervals the API merged into it.
 */
export function pointSpan(records: IntervalRecord[]): string {
  // The most common span, a phase's last point left out: it can hold one second more
  // (its sliver of a last interval folded in) or fewer (what was left), and says
  // nothing of the rest. A tie goes to the finer span.
  // A phase drawn as one point: that point is the whole phase, however many
  // intervals (a second and its folded sliver, or merged seconds) it holds.
  if (records.length === 1 && (records[0].merged ?? 1) > 1) return "One point for the whole phase";
  const body = records.length > 1 ? records.slice(0, -1) : records;
  const counts = new Map<number, number>();
  for (const r of body) counts.set(r.merged ?? 1, (counts.get(r.merged ?? 1) ?? 0) + 1);
  let merged = 0;
  for (const [m, n] of counts) {
    const best = counts.get(merged) ?? 0;
    if (n > best || (n === best && m < merged)) merged = m;
  }
  merged = merged || 1;
  return merged > 1 ? `Per ${merged} s (merged seconds)` : "Per second";
}

/** Whether two references name the same phase of the same round. */
function samePhase(a: PhaseRef, b: PhaseRef): boolean {
  return a.section === b.section && (a.round ?? null) === (b.round ?? null) && a.name === b.name;
}

export function intervalPoint(record: IntervalRecord): LivePoint {
  const p: LivePoint = {
    t: record.t_s + record.duration_s / 2,
    end: record.t_s + record.duration_s,
    interval: record.interval,
    place: `${record.section}/${record.round ?? "-"}/${record.phase}`,
    phase: record.phase,
  };
  if (record.epoch != null) p.epoch = record.epoch;
  for (const [op, s] of Object.entries(record.ops)) {
    if (!s) continue;
    p[`${op} ops/s`] = s.ops_per_sec;
    p[`${op} MiB/s`] = s.mib_per_sec;
    if (s.ops > 0) {
      p[`${op} p50`] = s.latency_us.p50 / 1000;
      p[`${op} p99`] = s.latency_us.p99 / 1000;
      p[`${op} p99.9`] = s.latency_us.p999 / 1000;
    }
    // An open loop's requests: how late they left their scheduled time.
    if (s.schedule_lag_us) {
      p[lagKey(op, "p50")] = s.schedule_lag_us.p50 / 1000;
      p[lagKey(op, "p99")] = s.schedule_lag_us.p99 / 1000;
    }
    for (const [cls, n] of Object.entries(s.error_classes)) {
      p[`errors ${cls}`] = ((p[`errors ${cls}`] as number | undefined) ?? 0) + (n ?? 0);
    }
  }
  for (const b of record.index ?? []) p[shardKey(b.bucket)] = b.shards;
  return p;
}

/**
 * How one kind of event changes the live state: `next` (a copy of `state` with the
 * event's id as its `lastId`) is changed in place.
 */
type Fold<K extends EventKind> = (next: LiveState, data: EventData<K>, state: LiveState, id: number) => void;

/**
 * What the live page does with each kind of run event the API sends: how it folds it
 * into what the page shows, or `null` for a kind it leaves to the run's results page.
 * Keyed by every kind of the generated API types, so a kind added to the API fails
 * typecheck until it has its entry here (and a unit test holds the keys to
 * docs/openapi.json).
 */
export const LIVE_FOLDS = {
  started: (next, d) => {
    next.runId = d.run_id;
    next.phases = d.phases;
    next.status = "running";
    next.error = null;
    next.endpoints = severalEndpoints(d.endpoint);
  },
  phase_started: (next, d) => {
    next.phase = d.phase;
    next.position = d.position;
    next.objects = d.objects;
    next.progress = undefined;
    next.epoch = undefined;
    next.endpointOps = undefined;
    next.asked = d.rate != null ? { phase: d.phase, rate: d.rate } : undefined;
    next.thresholds = undefined;
    if (d.index?.length) withIndex(next, d.index);
  },
  interval: foldInterval,
  // The phase's rows over all its seconds: the results page's tables.
  phase_finished: null,
  warning: (next, d, state) => {
    next.warnings = state.warnings.concat(d.message).slice(-20);
  },
  reshard: (next, d, state, id) => {
    next.reshards = state.reshards.concat({ ...d, id }).slice(-MAX_LIVE_MARKS);
  },
  stall: (next, d, state, id) => {
    next.stalls = state.stalls.concat({ ...d, id }).slice(-MAX_LIVE_MARKS);
  },
  // What polling the bucket index cost over the run: the results page's index section.
  index_polling: null,
  // Complete listings, metadata scans and transfers: the results page's sections of them.
  listing: null,
  metadata_scan: null,
  transfer: null,
  cleanup: (next, d) => {
    next.cleanup = d;
  },
  // Corrupt or missing objects, and listing audits: the results page's integrity section.
  integrity: null,
  audit: null,
  keys: (next, d) => {
    next.keys = d;
  },
  endpoint: (next, d, state, id) => {
    next.endpointEvents = state.endpointEvents.concat({ ...d, id }).slice(-MAX_LIVE_MARKS);
  },
  pause: (next, d, state) => {
    const pause = { from: d.from_t_s, to: d.to_t_s, reason: d.reason, text: `${d.shard ? `shard ${d.shard} ` : ""}${d.detail}`, shard: d.shard };
    next.pauses = state.pauses.concat(pause).slice(-MAX_LIVE_MARKS);
  },
  // What happened to the hosts of a run across agents: the live page lists the
  // controller's own record of it (LiveShards), which a reload does not lose.
  fleet: null,
  // A threshold the phase that just ended missed is said where warnings are; the run
  // page lists every threshold judged.
  threshold: (next, d, state) => {
    if (!d.passed) {
      next.warnings = state.warnings.concat(`${d.phase}: ${d.expect} missed (${d.actual_text})`).slice(-20);
    }
  },
  // The running phase's thresholds so far: the latest judgement is the one shown.
  thresholds_so_far: (next, d) => {
    next.thresholds = d;
  },
  step: (next, d) => {
    next.step = d.finished ? undefined : d;
  },
  finished: (next, d) => {
    next.status = d.status;
    next.error = d.error ?? null;
  },
} satisfies { [K in EventKind]: Fold<K> | null };

/** The events the live page folds (those with a fold in `LIVE_FOLDS`). */
export type LiveEventName = { [K in EventKind]: (typeof LIVE_FOLDS)[K] extends null ? never : K }[EventKind];

/** The events the live page folds, and so subscribes to (it reads no others). */
export const LIVE_EVENTS: readonly LiveEventName[] = (Object.keys(LIVE_FOLDS) as EventKind[]).filter(
  (kind): kind is LiveEventName => LIVE_FOLDS[kind] !== null,
);

export function isLiveEvent(name: string): name is LiveEventName {
  return (LIVE_EVENTS as readonly string[]).includes(name);
}

export function applyEvent(state: LiveState, e: RawEvent): LiveState {
  if (e.id <= state.lastId) return state;
  const next: LiveState = { ...state, lastId: e.id };
  if (isLiveEvent(e.name)) {
    const fold = LIVE_FOLDS[e.name] as Fold<LiveEventName>;
    fold(next, e.data as EventData<LiveEventName>, state, e.id);
  }
  return next;
}

/** A second measured: drawn, and (when it is of the phase that started last) that
 * phase's progress, objects, epoch and endpoints. */
function foldInterval(next: LiveState, d: EventData<"interval">, state: LiveState): void {
  // An interval of an earlier phase (a run of many agents merges each second once
  // every agent passed it, after the next phase may have started) is drawn, but the
  // phase, its progress and the objects stay those of the phase that started last.
  if (!state.phase || samePhase(state.phase, d.phase)) {
    next.phase = d.phase;
    next.progress = d.progress;
    next.objects = d.progress.objects;
    next.epoch = d.record.epoch ?? undefined;
    const endpoints = (d.folded ?? d.record).endpoints;
    if (endpoints?.length) next.endpointOps = endpoints;
  }
  // A phase's sliver of a last interval comes folded into the interval before: that
  // point is drawn again with it, never the sliver as a second of its own.
  const folded = d.folded ?? null;
  const point = intervalPoint(folded ?? d.record);
  if (state.asked && samePhase(state.asked.phase, d.phase)) {
    // What was asked in this second (a run across agents: of the shards that ran in it).
    point[ASKED_KEY] = (folded ?? d.record).asked_per_sec ?? state.asked.rate;
    next.anyAsked = true;
  }
  const ops = Object.keys(d.record.ops);
  next.ops = union(state.ops, ops);
  next.lagOps = union(
    state.lagOps,
    ops.filter((op) => d.record.ops[op]?.schedule_lag_us),
  );
  const classes = Object.keys(point)
    .filter((k) => k.startsWith("errors "))
    .map((k) => k.slice(7));
  next.errorClasses = union(state.errorClasses, classes);
  const last = state.points[state.points.length - 1];
  const replaces = folded != null && last?.interval === point.interval && last.place === point.place;
  const points = replaces ? state.points.slice(0, -1).concat(point) : state.points.concat(point);
  next.points = points.length > MAX_LIVE_POINTS ? points.slice(points.length - MAX_LIVE_POINTS) : points;
  if (d.record.index?.length) withIndex(next, d.record.index);
}

/**
 * The live charts' series: throughput and bandwidth per operation (with the rate an
 * open-loop phase asked for), latency per operation and percentile (one colour per
 * operation, a dash per percentile) with how late open-loop requests left, errors per
 * class.
 */
export function liveSeries(ops: string[], errorClasses: string[], schedule: { lagOps?: string[]; asked?: boolean } = {}) {
  return {
    ops: ops
      .map((op) => ({ key: `${op} ops/s`, name: op, colour: opColour(op) }))
      .concat(schedule.asked ? [askedSeries(ops.length > 1)] : []),
    mib: ops.map((op) => ({ key: `${op} MiB/s`, name: op, colour: opColour(op) })),
    lat: ops
      .flatMap((op) =>
        PERCENTILES.map((q) => ({ key: `${op} ${q}`, name: `${op} ${q}`, colour: opColour(op), dash: PERCENTILE_DASH[q] })),
      )
      .concat(lagSeries(schedule.lagOps ?? [])),
    errors: errorClasses.map((c) => ({ key: `errors ${c}`, name: c })),
  };
}

/**
 * What the progress card says once the run ended: how, after how long, and how far it
 * got ("completed in 27.0 s, 5 phases"; "interrupted after 12.0 s, in phase 3 of 5").
 */
export function endedSummary(status: RunStatus, state: LiveState): string {
  const last = state.points[state.points.length - 1]?.end;
  const phases = state.phases;
  if (status === "completed") {
    const took = last != null ? ` in ${fmtDuration(last)}` : "";
    const count = phases != null ? `, ${phases} phase${phases === 1 ? "" : "s"}` : "";
    return `completed${took}${count}`;
  }
  const after = last != null ? ` after ${fmtDuration(last)}` : "";
  const where = state.position != null && phases != null ? `, in phase ${state.position + 1} of ${phases}` : "";
  return `${status}${after}${where}`;
}

/** The endpoints of a run's start (`a,b` when it drives several); none for one. */
export function severalEndpoints(endpoint: string): string[] {
  const urls = endpoint
    .split(",")
    .map((u) => u.trim())
    .filter(Boolean);
  return urls.length > 1 ? urls : [];
}

function withIndex(next: LiveState, index: BucketIndex[]): void {
  next.index = index;
  next.buckets = union(next.buckets, index.map((b) => b.bucket));
}

function union(a: string[], b: string[]): string[] {
  const extra = b.filter((x) => !a.includes(x));
  return extra.length ? a.concat(extra) : a;
}

/** Where each phase begins among the points (its first interval's start) and its name,
 * as the heatmap labels them ("r2 write", "fill"). */
export function phaseMarks(points: LivePoint[]): Array<{ t: number; label: string }> {
  const out: Array<{ t: number; label: string }> = [];
  let place: string | undefined;
  for (const p of points) {
    if (p.place === place) continue;
    place = p.place;
    const [, round, ...name] = p.place.split("/");
    const phase = name.join("/");
    out.push({ t: 2 * p.t - p.end, label: round !== "-" ? `r${round} ${phase}` : phase });
  }
  return out;
}

/** Where each epochs phase among the points entered its next epoch. */
export function liveEpochMarks(points: LivePoint[]): EpochMark[] {
  return epochMarks(points.map((p) => ({ start: 2 * p.t - p.end, place: p.place, epoch: typeof p.epoch === "number" ? p.epoch : undefined })));
}

/** The keys the running phase reads, once it started (their event comes just before). */
export function runningKeys(state: LiveState): KeysEvent | undefined {
  return state.keys && state.phase && samePhase(state.keys.phase, state.phase) ? state.keys : undefined;
}

/** The shortest time axis of a live run (s). */
export const MIN_LIVE_SPAN_S = 10;

/** A live run's time axis, shared by its line charts and its heatmap so a second sits at
 * the same x on each: the run's start to a round time just past its last point (30 s
 * for a 28 s run), at least ten seconds, growing as the run goes. */
export function liveDomain(points: LivePoint[], elapsedS = 0): [number, number] {
  const end = points[points.length - 1]?.end ?? 0;
  return [0, niceTimeEnd(Math.max(end, elapsedS), MIN_LIVE_SPAN_S)];
}
