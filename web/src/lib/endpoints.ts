// A run that drives several endpoints (the gateways of one cluster): what each took of
// every summary row, the lines of the chart that shows which gateway is slow, the
// down and up marks on the time charts, the live page's table of the latest second,
// and the compare page's figures per endpoint.
import type { EndpointEvent, EndpointOps, EndpointRow, OpSummary, SummaryRow } from "../api/types";
import { type Aggregate, aggregate, aggregateKey } from "./compare";
import { placeLabel } from "./rounds";

/** `gw1:8080` of `http://gw1:8080`: what labels say; the text itself if it is no URL. */
export function endpointHost(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

/** Whether any row says what each endpoint took of it. */
export function hasEndpointRows(rows: SummaryRow[]): boolean {
  return rows.some((r) => (r.endpoints?.length ?? 0) > 0);
}

/**
 * The run's endpoints in the order its results number them: the manifest's list, then
 * any other a row or an event names (in the order met).
 */
export function endpointOrder(rows: SummaryRow[], listed: string[] = [], events: EndpointEvent[] = []): string[] {
  const out = [...listed];
  const add = (e: string) => {
    if (!out.includes(e)) out.push(e);
  };
  for (const r of rows) for (const e of r.endpoints ?? []) add(e.endpoint);
  for (const e of events) add(e.endpoint);
  return out;
}

/** One line of the endpoints table: one endpoint's part of one summary row. */
export interface EndpointTableRow {
  /** The summary row's place (`round 2`, `before`), phase and operation. */
  place: string;
  phase: string;
  op: string;
  endpoint: string;
  /** Its share of the row's operations, in %; null for a row without operations. */
  share: number | null;
  stats: EndpointRow;
  /** Whether it opens its summary row's group. */
  first: boolean;
}

/** The endpoint lines of every row that has them, in the rows' order. */
export function endpointTableRows(rows: SummaryRow[]): EndpointTableRow[] {
  return rows.flatMap((r) =>
    (r.endpoints ?? []).map((e, i) => ({
      place: placeLabel(r),
      phase: r.phase,
      op: r.op,
      endpoint: e.endpoint,
      share: r.ops > 0 ? (100 * e.ops) / r.ops : null,
      stats: e,
      first: i === 0,
    })),
  );
}

/** Failed operations by class, `timeout: 3, connection: 2`; "" for none. */
export function errorClassesText(classes: Record<string, number | undefined> | undefined): string {
  return Object.entries(classes ?? {})
    .filter(([, n]) => (n ?? 0) > 0)
    .map(([cls, n]) => `${cls}: ${(n ?? 0).toLocaleString("en-US")}`)
    .join(", ");
}

/** The key of endpoint `i`'s line in chart rows (never its URL: a dot is a path there). */
export function endpointKey(i: number): string {
  return `endpoint ${i}`;
}

/** One x of the chart across phases: a phase × round × operation, in run order. */
export interface PlacePoint {
  x: number;
  /** `r2 write · put`, `fill · put`. */
  label: string;
  [series: string]: number | string;
}

/** Where a row sits, as the x axis says it: `r2 write · put`, `fill · put`. */
export function placeTick(r: Pick<SummaryRow, "section" | "round" | "phase" | "op">): string {
  const where = r.section === "round" ? `r${r.round} ${r.phase}` : r.phase;
  return `${where} · ${r.op}`;
}

/**
 * The chart of which gateway is slow: x = each phase × round × operation that has
 * endpoint rows, one value per endpoint (`endpointKey(i)`, `i` its place in
 * `endpoints`). An endpoint without operations there has no latency: no point.
 */
export function endpointPlaces(rows: SummaryRow[], endpoints: string[], metric: (s: OpSummary) => number | null): PlacePoint[] {
  return rows
    .filter((r) => (r.endpoints?.length ?? 0) > 0)
    .map((r, x) => {
      const point: PlacePoint = { x, label: placeTick(r) };
      for (const e of r.endpoints ?? []) {
        const i = endpoints.indexOf(e.endpoint);
        const v = metric(e);
        if (i >= 0 && v != null && Number.isFinite(v)) point[endpointKey(i)] = v;
      }
      return point;
    });
}

/** Throughput of an endpoint's part (ops/s). */
export const endpointThroughput = (s: OpSummary): number => s.ops_per_sec;
/** p99 of an endpoint's part (ms); none when it did no operation. */
export const endpointP99Ms = (s: OpSummary): number | null => (s.ops > 0 ? s.latency_us.p99 / 1000 : null);

/** Where an endpoint went down or came back, on a time chart. */
export interface EndpointMark {
  /** Seconds from the run's start. */
  t: number;
  state: EndpointEvent["state"];
  /** `down: gw1:8080`. */
  label: string;
}

/** The marks of endpoint events, those within `span` (s) when given. */
export function endpointMarks(events: EndpointEvent[], span?: [number, number] | null): EndpointMark[] {
  return events
    .filter((e) => !span || (e.t_s >= span[0] && e.t_s <= span[1]))
    .map((e) => ({ t: e.t_s, state: e.state, label: `${e.state}: ${endpointHost(e.endpoint)}` }));
}

/** The endpoints down after `events` (in time order): each one's last event said down. */
export function downEndpoints(events: EndpointEvent[]): Map<string, EndpointEvent> {
  const down = new Map<string, EndpointEvent>();
  for (const e of events) {
    if (e.state === "down") down.set(e.endpoint, e);
    else down.delete(e.endpoint);
  }
  return down;
}

/** One line of the live page's endpoint table: what an endpoint did in the latest second. */
export interface LiveEndpointRow {
  endpoint: string;
  /** Operations per second, all operations together; null when it did none. */
  opsPerSec: number | null;
  /** The highest p99 among its operations (µs), and which operation's it is. */
  p99us: number | null;
  p99op?: string;
  errors: number;
  /** The event that marked it down, while it is. */
  down?: EndpointEvent;
}

/**
 * The live table: every endpoint known (from the run's start, its intervals and its
 * events), with what it did in the latest interval and whether it is down.
 */
export function liveEndpointRows(latest: EndpointOps[] | undefined, events: EndpointEvent[], known: string[] = []): LiveEndpointRow[] {
  const down = downEndpoints(events);
  const names = [...known];
  for (const e of latest ?? []) if (!names.includes(e.endpoint)) names.push(e.endpoint);
  for (const e of events) if (!names.includes(e.endpoint)) names.push(e.endpoint);
  return names.map((endpoint) => {
    const ops = Object.entries(latest?.find((e) => e.endpoint === endpoint)?.ops ?? {}).filter(
      (entry): entry is [string, OpSummary] => entry[1] != null,
    );
    let p99us: number | null = null;
    let p99op: string | undefined;
    for (const [op, s] of ops) {
      if (s.ops > 0 && (p99us == null || s.latency_us.p99 > p99us)) {
        p99us = s.latency_us.p99;
        p99op = op;
      }
    }
    return {
      endpoint,
      opsPerSec: ops.length ? ops.reduce((sum, [, s]) => sum + s.ops_per_sec, 0) : null,
      p99us,
      p99op,
      errors: ops.reduce((sum, [, s]) => sum + s.errors, 0),
      down: down.get(endpoint),
    };
  });
}

/** A phase × operation of the compare page's endpoint table, each endpoint's figures per run. */
export interface EndpointComparison {
  section: string;
  phase: string;
  op: string;
  endpoint: string;
  /** Per run (in the runs' order): its figures over all rounds, or null where it has none. */
  runs: Array<Aggregate | null>;
}

/**
 * Each endpoint's throughput and worst p99 per phase × operation of each run, over all
 * its rounds (total operations / total time, the worst round's percentile), side by
 * side; endpoints matched by URL.
 */
export function compareEndpoints(rowsPerRun: SummaryRow[][]): EndpointComparison[] {
  const out = new Map<string, EndpointComparison>();
  // Phase × operation first (as the runs have them), then each endpoint (as met).
  const places: string[] = [];
  const endpoints: string[] = [];
  rowsPerRun.forEach((rows, run) => {
    const byEndpoint = new Map<string, SummaryRow[]>();
    for (const r of rows) {
      for (const e of r.endpoints ?? []) {
        // The endpoint's part as a row of its own: its counters and percentiles over the row's time.
        const part: SummaryRow = { ...r, ...e, duration_s: r.duration_s, endpoints: undefined };
        byEndpoint.set(e.endpoint, (byEndpoint.get(e.endpoint) ?? []).concat(part));
      }
    }
    for (const [endpoint, parts] of byEndpoint) {
      if (!endpoints.includes(endpoint)) endpoints.push(endpoint);
      for (const [key, a] of aggregate(parts)) {
        if (!places.includes(key)) places.push(key);
        const id = JSON.stringify([key, endpoint]);
        const line = out.get(id) ?? { section: a.section, phase: a.phase, op: a.op, endpoint, runs: rowsPerRun.map(() => null) };
        line.runs[run] = a;
        out.set(id, line);
      }
    }
  });
  const rank = (line: EndpointComparison) => [places.indexOf(aggregateKey(line)), endpoints.indexOf(line.endpoint)];
  return [...out.values()].sort((a, b) => {
    const [pa, ea] = rank(a);
    const [pb, eb] = rank(b);
    return pa - pb || ea - eb;
  });
}
