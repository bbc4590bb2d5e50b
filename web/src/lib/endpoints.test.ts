// A run that drives several endpoints: the endpoints table's lines and shares, the
// chart across phases, the down and up marks, the live table and its events, and the
// compare page's figures per endpoint.
import { describe, expect, it } from "vitest";
import type { EndpointEvent, EndpointOps, EndpointRow, OpSummary, SummaryRow } from "../api/types";
import {
  compareEndpoints,
  downEndpoints,
  endpointHost,
  endpointMarks,
  endpointOrder,
  endpointP99Ms,
  endpointPlaces,
  endpointTableRows,
  endpointThroughput,
  errorClassesText,
  hasEndpointRows,
  liveEndpointRows,
} from "./endpoints";
import { applyEvent, initialLive, severalEndpoints } from "./live";

const A = "http://127.0.0.1:9001";
const B = "http://127.0.0.1:9002";

function stats(ops: number, p99us: number, extra: Partial<OpSummary> = {}): OpSummary {
  return {
    ops,
    errors: 0,
    error_rate: 0,
    error_classes: {},
    ops_per_sec: ops / 10,
    bytes: ops * 1024,
    mib_per_sec: (ops * 1024) / 1048576 / 10,
    keys: 0,
    keys_per_sec: 0,
    latency_us: { p50: p99us / 2, p90: p99us, p99: p99us, p999: p99us, max: p99us, mean: p99us / 2 },
    ...extra,
  } as OpSummary;
}

function part(endpoint: string, ops: number, p99us: number, extra: Partial<OpSummary> = {}): EndpointRow {
  return { endpoint, ...stats(ops, p99us, extra) };
}

function row(r: Partial<SummaryRow> & { phase: string; op: string }, endpoints?: EndpointRow[]): SummaryRow {
  const ops = (endpoints ?? []).reduce((n, e) => n + e.ops, 0);
  return {
    section: "round",
    round: 1,
    duration_s: 10,
    objects_at_start: 0,
    ...stats(ops, 5000),
    endpoints,
    ...r,
  } as SummaryRow;
}

const event = (endpoint: string, state: "down" | "up", t_s: number, detail = ""): EndpointEvent => ({
  endpoint,
  state,
  t_s,
  phase: { section: "round", round: 1, index: 0, name: "write" },
  failures: state === "down" ? 3 : 1,
  detail,
});

describe("endpoint names", () => {
  it("labels an endpoint by host and port, and keeps text that is no URL", () => {
    expect(endpointHost("http://gw1.example:8080")).toBe("gw1.example:8080");
    expect(endpointHost("https://s3.example.com/")).toBe("s3.example.com");
    expect(endpointHost("endpoint 2")).toBe("endpoint 2");
  });

  it("orders endpoints as the manifest lists them, then as rows and events name them", () => {
    const rows = [row({ phase: "w", op: "put" }, [part("http://c", 1, 1), part(B, 1, 1)])];
    expect(endpointOrder(rows, [A, B], [event("http://d", "down", 1)])).toEqual([A, B, "http://c", "http://d"]);
    expect(endpointOrder(rows)).toEqual(["http://c", B]);
  });

  it("says the errors of each class, leaving out classes with none", () => {
    expect(errorClassesText({ connection: 12, timeout: 0, slow_down: 1500 })).toBe("connection: 12, slow_down: 1,500");
    expect(errorClassesText(undefined)).toBe("");
  });
});

describe("endpoints table", () => {
  it("is there only for runs whose rows break down by endpoint", () => {
    expect(hasEndpointRows([row({ phase: "w", op: "put" })])).toBe(false);
    expect(hasEndpointRows([row({ phase: "w", op: "put" }, [])])).toBe(false);
    expect(hasEndpointRows([row({ phase: "w", op: "put" }, [part(A, 1, 1)])])).toBe(true);
  });

  it("lists each endpoint of each row with its share of the row's operations", () => {
    const rows = [
      row({ phase: "write", op: "put" }, [part(A, 3000, 2000), part(B, 1000, 9000)]),
      row({ phase: "read", op: "get", section: "before", round: null }, [part(A, 500, 1000), part(B, 500, 1200)]),
      row({ phase: "lost", op: "get" }, [part(A, 0, 0, { errors: 5 })]),
    ];
    const lines = endpointTableRows(rows);
    expect(lines.map((l) => [l.place, l.phase, l.op, l.endpoint, l.share, l.first])).toEqual([
      ["round 1", "write", "put", A, 75, true],
      ["round 1", "write", "put", B, 25, false],
      ["before", "read", "get", A, 50, true],
      ["before", "read", "get", B, 50, false],
      // A row without operations has no shares to give.
      ["round 1", "lost", "get", A, null, true],
    ]);
    expect(lines[1].stats.latency_us.p99).toBe(9000);
  });
});

describe("which gateway is slow", () => {
  const rows = [
    row({ phase: "fill", op: "put", section: "before", round: null }, [part(A, 1000, 2000), part(B, 1000, 8000)]),
    row({ phase: "write", op: "put" }, [part(A, 800, 2500), part(B, 200, 9000)]),
    row({ phase: "no-breakdown", op: "get" }),
    row({ phase: "write", op: "put", round: 2 }, [part(A, 1000, 2100), part(B, 0, 0, { errors: 40 })]),
  ];

  it("puts each phase × round × operation on x, in run order, one value per endpoint", () => {
    const throughput = endpointPlaces(rows, [A, B], endpointThroughput);
    expect(throughput).toEqual([
      { x: 0, label: "fill · put", "endpoint 0": 100, "endpoint 1": 100 },
      { x: 1, label: "r1 write · put", "endpoint 0": 80, "endpoint 1": 20 },
      { x: 2, label: "r2 write · put", "endpoint 0": 100, "endpoint 1": 0 },
    ]);
  });

  it("draws no latency where an endpoint did no operation", () => {
    const p99 = endpointPlaces(rows, [A, B], endpointP99Ms);
    expect(p99.map((p) => [p["endpoint 0"], p["endpoint 1"]])).toEqual([
      [2, 8],
      [2.5, 9],
      [2.1, undefined],
    ]);
  });
});

describe("endpoint marks", () => {
  const events = [event(B, "down", 4.2, "connection refused"), event(B, "up", 9.5, "down for 5.3 s"), event(A, "down", 30)];

  it("marks each event with its state and the endpoint's host", () => {
    expect(endpointMarks(events)).toEqual([
      { t: 4.2, state: "down", label: "down: 127.0.0.1:9002" },
      { t: 9.5, state: "up", label: "up: 127.0.0.1:9002" },
      { t: 30, state: "down", label: "down: 127.0.0.1:9001" },
    ]);
  });

  it("keeps only the events within a phase's span", () => {
    expect(endpointMarks(events, [0, 10]).map((m) => m.t)).toEqual([4.2, 9.5]);
    expect(endpointMarks(events, [10, 20])).toEqual([]);
  });

  it("knows which endpoints are down after the events so far", () => {
    expect([...downEndpoints(events).keys()]).toEqual([A]);
    expect([...downEndpoints(events.slice(0, 1)).keys()]).toEqual([B]);
  });
});

describe("live endpoints", () => {
  it("knows a run's endpoints from its start only when it drives several", () => {
    expect(severalEndpoints(`${A},${B}`)).toEqual([A, B]);
    expect(severalEndpoints(A)).toEqual([]);
    expect(severalEndpoints("embedded")).toEqual([]);
  });

  it("shows what each endpoint did in the latest second, and which are down", () => {
    const latest: EndpointOps[] = [
      { endpoint: A, ops: { put: stats(900, 3000), get: stats(100, 7000) } },
      { endpoint: B, ops: { put: stats(10, 1000, { errors: 4 }) } },
    ];
    const rows = liveEndpointRows(latest, [event("http://c", "down", 2, "timed out")], [A, B, "http://c"]);
    expect(rows.map((r) => [r.endpoint, r.opsPerSec, r.p99us, r.p99op, r.errors, r.down?.detail])).toEqual([
      [A, 100, 7000, "get", 0, undefined],
      [B, 1, 1000, "put", 4, undefined],
      // Down all second: no figures, and why.
      ["http://c", null, null, undefined, 0, "timed out"],
    ]);
  });

  it("folds endpoint events and each interval's endpoints into the live state", () => {
    const phase = { section: "round" as const, round: 1, index: 0, name: "write" };
    let s = initialLive();
    s = applyEvent(s, { id: 0, name: "started", data: { run_id: "r", endpoint: `${A},${B}`, phases: 1 } });
    expect(s.endpoints).toEqual([A, B]);
    s = applyEvent(s, { id: 1, name: "phase_started", data: { phase, position: 0, end: "list_once", listers: 4, concurrency: 4, objects: 0 } });
    const record = {
      section: "round",
      round: 1,
      phase: "write",
      interval: 1,
      t_s: 1,
      duration_s: 1,
      ops: { put: stats(100, 2000) },
      endpoints: [{ endpoint: A, ops: { put: stats(100, 2000) } }],
    };
    s = applyEvent(s, { id: 2, name: "interval", data: { phase, record, progress: { elapsed_s: 1, ops: 100, errors: 0, objects: 100 } } });
    expect(s.endpointOps).toEqual(record.endpoints);
    s = applyEvent(s, { id: 3, name: "endpoint", data: event(B, "down", 1.5, "connection refused") });
    // Replayed after a reconnect: counted once.
    s = applyEvent(s, { id: 3, name: "endpoint", data: event(B, "down", 1.5, "connection refused") });
    expect(s.endpointEvents.map((e) => [e.id, e.endpoint, e.state])).toEqual([[3, B, "down"]]);
    expect(liveEndpointRows(s.endpointOps, s.endpointEvents, s.endpoints).map((r) => [r.endpoint, r.down != null])).toEqual([
      [A, false],
      [B, true],
    ]);
  });
});

describe("endpoints compared", () => {
  it("gives each endpoint's throughput and worst p99 per phase and operation, run beside run", () => {
    const first = [
      row({ phase: "write", op: "put", round: 1 }, [part(A, 1000, 2000), part(B, 1000, 6000)]),
      row({ phase: "write", op: "put", round: 2 }, [part(A, 1000, 3000), part(B, 1000, 5000)]),
      row({ phase: "read", op: "get" }, [part(A, 500, 1000)]),
    ];
    const second = [row({ phase: "write", op: "put" }, [part(A, 3000, 1500), part("http://c", 1000, 4000)])];
    const lines = compareEndpoints([first, second]);
    expect(lines.map((l) => [l.phase, l.op, l.endpoint])).toEqual([
      ["write", "put", A],
      ["write", "put", B],
      ["write", "put", "http://c"],
      ["read", "get", A],
    ]);
    const [a, b, c] = lines;
    // Two rounds of 10 s: 2,000 operations in 20 s; the worse round's p99.
    expect([a.runs[0]?.ops_per_sec, a.runs[0]?.worst_p99_us]).toEqual([100, 3000]);
    expect([a.runs[1]?.ops_per_sec, a.runs[1]?.worst_p99_us]).toEqual([300, 1500]);
    expect(b.runs[1]).toBeNull();
    expect(c.runs[0]).toBeNull();
    expect(c.runs[1]?.ops).toBe(1000);
  });
});
