// The endpoints of a run page and of the compare page: absent for runs of one endpoint;
// otherwise each endpoint's part of every row (shares adding up to the row), the events
// of endpoints going down and up, and the runs' endpoints side by side; and the live
// page's table of the latest second with the endpoints down.
import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { EndpointRow, SummaryRow } from "../api/types";
import { initialLive } from "../lib/live";
import { EndpointsComparison } from "./EndpointsComparison";
import { EndpointsSection } from "./EndpointsSection";
import { LiveEndpoints } from "./LiveEndpoints";

afterEach(cleanup);

const A = "http://127.0.0.1:9001";
const B = "http://127.0.0.1:9002";

const stats = (ops: number, p99: number, errors = 0) => ({
  ops,
  errors,
  error_rate: 0,
  error_classes: (errors ? { connection: errors } : {}) as Record<string, number>,
  ops_per_sec: ops / 10,
  bytes: ops * 100,
  mib_per_sec: 2.5,
  keys: 0,
  keys_per_sec: 0,
  latency_us: { min: 1, mean: p99 / 2, p50: p99 / 2, p90: p99, p99, p999: p99, max: p99 },
});

const part = (endpoint: string, ops: number, p99: number, errors = 0) => ({ endpoint, ...stats(ops, p99, errors) }) as EndpointRow;

const row = (endpoints?: EndpointRow[]) =>
  ({
    section: "before",
    round: null,
    phase: "write",
    op: "put",
    objects_at_start: 0,
    started_at: "2026-11-22T10:00:03Z",
    duration_s: 10,
    client_cpu_s: 1,
    ...stats(3000, 4000, 6),
    endpoints,
  }) as SummaryRow;

const down = { endpoint: B, state: "down" as const, t_s: 4.2, phase: { section: "before" as const, index: 0, name: "write" }, failures: 3, detail: "connection refused" };

describe("endpoints section", () => {
  it("is absent for a run of one endpoint", () => {
    expect(render(<EndpointsSection rows={[row()]} phases={[row()]} report={{ events: [], omitted: 0 }} />).container.innerHTML).toBe("");
  });

  it("lists each endpoint's part of each row and the endpoints that went down", () => {
    const rows = [row([part(A, 2000, 2000), part(B, 1000, 9000, 6)])];
    render(<EndpointsSection rows={rows} phases={rows} endpoints={[A, B]} report={{ events: [down], omitted: 0 }} />);
    const lines = screen.getAllByTestId("endpoint-row");
    const cells = (i: number) => within(lines[i]).getAllByRole("cell").map((c) => c.textContent);
    expect(cells(0)).toEqual(["before", "write", "put", A, "2,000", "66.7 %", "200 ops/s", "2.50 MiB/s", "1.00 ms", "2.00 ms", "0", "–"]);
    expect(cells(1)).toEqual(["", "", "", B, "1,000", "33.3 %", "100 ops/s", "2.50 MiB/s", "4.50 ms", "9.00 ms", "6", "connection: 6"]);
    const shares = lines.map((l) => Number(l.getAttribute("data-share")));
    expect(shares.reduce((a, b) => a + b, 0)).toBeCloseTo(100, 9);
    const events = screen.getAllByTestId("endpoint-event");
    expect(events).toHaveLength(1);
    expect(within(events[0]).getAllByRole("cell").map((c) => c.textContent)).toEqual(["4.2 s", B, "down", "before · write", "3", "connection refused"]);
    expect(screen.getByTestId("endpoints-throughput-chart")).toBeTruthy();
    expect(screen.getByTestId("endpoints-p99-chart").getAttribute("data-scale")).toBe("log");
  });

  it("says so when no endpoint went down, and counts the events it does not list", () => {
    const rows = [row([part(A, 2000, 2000), part(B, 1000, 9000)])];
    const { rerender } = render(<EndpointsSection rows={rows} phases={rows} report={{ events: [], omitted: 0 }} />);
    expect(screen.getByTestId("endpoint-events-none").textContent).toBe("No endpoint went down.");
    rerender(<EndpointsSection rows={rows} phases={rows} report={{ events: [down], omitted: 1200 }} />);
    expect(screen.getByTestId("endpoints-section").textContent).toContain("1,200 later events are not listed.");
  });
});

describe("endpoints compared", () => {
  it("is absent when no run breaks down by endpoint, else shows each endpoint's figures per run", () => {
    expect(render(<EndpointsComparison runs={[{ label: "#1", rows: [row()] }, { label: "#2", rows: [row()] }]} />).container.innerHTML).toBe("");
    cleanup();
    render(
      <EndpointsComparison
        runs={[
          { label: "#1", rows: [row([part(A, 2000, 2000), part(B, 1000, 9000)])] },
          { label: "#2", rows: [row()] },
        ]}
      />,
    );
    const lines = screen.getAllByTestId("compare-endpoint-row");
    expect(lines.map((l) => within(l).getAllByRole("cell").map((c) => c.textContent))).toEqual([
      ["before · write · put", A, "200 ops/s", "2.00 ms", "–", "–"],
      ["", B, "100 ops/s", "9.00 ms", "–", "–"],
    ]);
  });
});

describe("live endpoints", () => {
  it("is absent for a run of one endpoint", () => {
    expect(render(<LiveEndpoints state={initialLive()} />).container.innerHTML).toBe("");
  });

  it("shows each endpoint's latest second and which are down, the newest event first", () => {
    const state = {
      ...initialLive(),
      endpoints: [A, B],
      endpointOps: [{ endpoint: A, ops: { put: stats(500, 3000) } }],
      endpointEvents: [
        { ...down, t_s: 2, id: 5 },
        { ...down, state: "up" as const, t_s: 3, detail: "down for 1.0 s", id: 6 },
        { ...down, t_s: 4.2, id: 7 },
      ],
    };
    render(<LiveEndpoints state={state} />);
    const rows = screen.getAllByTestId("live-endpoint-row");
    expect(rows.map((r) => [r.getAttribute("data-endpoint"), r.getAttribute("data-down")])).toEqual([
      [A, "false"],
      [B, "true"],
    ]);
    expect(within(rows[0]).getAllByRole("cell").map((c) => c.textContent)).toEqual([A, "up", "50.0 ops/s", "3.00 ms (put)", "0"]);
    expect(within(rows[1]).getAllByRole("cell").map((c) => c.textContent)).toEqual([B, "down since 4.2 s", "–", "–", "0"]);
    expect(screen.getAllByTestId("endpoint-event").map((e) => e.getAttribute("data-state"))).toEqual(["down", "up", "down"]);
    expect(screen.getAllByTestId("endpoint-event")[0].textContent).toContain("4.2 s");
  });
});
