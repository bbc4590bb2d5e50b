// Pages against a stubbed server (fetch replaced here, and only in this file): the runs
// page's empty and unreachable states, the editor validating as you type (debounced)
// and marking the offending line, and a start refused because a run is going.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { afterEach, describe, expect, it, vi } from "vitest";
import { LiveShards } from "../components/LiveShards";
import { AgentsPage, fmtOffset } from "./AgentsPage";
import { RunsPage } from "./RunsPage";
import { WorkloadsPage } from "./WorkloadsPage";

type Handler = (method: string, path: string, body: unknown) => { status: number; json?: unknown } | "network-error";

/** Replaces fetch with `handler`; returns the calls it received. */
function stubServer(handler: Handler): Array<{ method: string; path: string; body: unknown }> {
  const calls: Array<{ method: string; path: string; body: unknown }> = [];
  vi.stubGlobal("fetch", async (input: RequestInfo | URL, init?: RequestInit) => {
    const method = init?.method ?? "GET";
    const path = String(input);
    const body = typeof init?.body === "string" ? (JSON.parse(init.body) as unknown) : undefined;
    calls.push({ method, path, body });
    const answer = handler(method, path, body);
    if (answer === "network-error") throw new TypeError("Failed to fetch");
    return new Response(answer.json === undefined ? null : JSON.stringify(answer.json), {
      status: answer.status,
      headers: { "content-type": "application/json" },
    });
  });
  return calls;
}

function renderAt(path: string, routes: ReactNode) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>{routes}</Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("runs page", () => {
  it("says how to get a first run when there is none", async () => {
    stubServer((method, path) => (method === "GET" && path === "/api/runs" ? { status: 200, json: [] } : { status: 404 }));
    renderAt("/runs", <Route path="/runs" element={<RunsPage />} />);
    const empty = await screen.findByTestId("empty-state");
    expect(empty.textContent).toContain("No runs yet");
    expect(empty.textContent).toContain("keystorm run workloads/demo.yaml");
    expect(screen.getByRole("link", { name: "Workloads" }).getAttribute("href")).toBe("/workloads");
    expect(screen.queryByTestId("runs-table")).toBeNull();
  });

  it("says the server is unreachable rather than showing an empty list", async () => {
    stubServer(() => "network-error");
    renderAt("/runs", <Route path="/runs" element={<RunsPage />} />);
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("keystorm serve");
    expect(screen.queryByTestId("empty-state")).toBeNull();
  });
});

const VALID = "name: demo\nbuckets: { names: [b] }\nbefore:\n  - { op: put, operations: 10 }\n";

/** A server whose validator rejects any text with a `bogus` line, naming that line. */
const workloadServer =
  (text: string, onStart: () => { status: number; json?: unknown }): Handler =>
  (method, path, body) => {
    if (method === "GET" && path === "/api/workloads") return { status: 200, json: [{ name: "demo", description: "d", size_bytes: 1 }] };
    if (method === "GET" && path === "/api/workloads/demo") return { status: 200, json: { name: "demo", text } };
    if (method === "GET" && path === "/api/status")
      return { status: 200, json: { version: "0.1.0", running: "20261122-100000-demo-abcd", token_required: false, workloads_dir: "w" } };
    if (method === "POST" && path === "/api/workloads/validate") {
      const lines = (body as { text: string }).text.split("\n");
      const bad = lines.findIndex((l) => l.startsWith("bogus"));
      return bad < 0
        ? { status: 200, json: { valid: true, errors: [], warnings: [], outline: { name: "demo", phases: [], rounds: 1 } } }
        : { status: 200, json: { valid: false, errors: [{ line: bad + 1, column: 1, message: "unknown field `bogus`" }], warnings: [] } };
    }
    if (method === "POST" && path === "/api/runs") return onStart();
    return { status: 404, json: { error: "not_found", detail: path } };
  };

const workloadRoutes = (
  <>
    <Route path="/workloads/:name" element={<WorkloadsPage />} />
    <Route path="/runs/:id/live" element={<div data-testid="live-page" />} />
  </>
);

describe("workload editor", () => {
  it("marks the line the validator names, and validates once typing pauses", async () => {
    const calls = stubServer(workloadServer("name: demo\nbogus: 1\nbuckets: { names: [b] }\n", () => ({ status: 500 })));
    renderAt("/workloads/demo", workloadRoutes);

    const marked = await screen.findAllByTestId("error-line");
    expect(marked.map((m) => m.textContent)).toEqual(["2"]);
    expect(screen.getByTestId("validation-error").textContent).toContain("line 2, column 1: unknown field `bogus`");
    expect((screen.getByTestId("start-run") as HTMLButtonElement).disabled).toBe(true);

    // Three edits in quick succession: one validation, of the last text.
    const before = calls.filter((c) => c.path === "/api/workloads/validate").length;
    const textarea = screen.getByTestId("workload-textarea");
    fireEvent.change(textarea, { target: { value: "name: demo\nbogus: 2\n" } });
    fireEvent.change(textarea, { target: { value: "name: demo\n" } });
    fireEvent.change(textarea, { target: { value: VALID } });
    await screen.findByTestId("validation-ok");
    const validations = calls.filter((c) => c.path === "/api/workloads/validate").slice(before);
    expect(validations).toHaveLength(1);
    expect(validations[0].body).toEqual({ text: VALID });
    expect(screen.queryByTestId("error-line")).toBeNull();
    expect((screen.getByTestId("start-run") as HTMLButtonElement).disabled).toBe(false);
  });

  it("on a 409, says a run is going and links to its live page", async () => {
    const calls = stubServer(
      workloadServer(VALID, () => ({
        status: 409,
        json: { error: "run_in_progress", detail: "run 20261122-100000-demo-abcd is still going; stop it or wait for it to finish" },
      })),
    );
    renderAt("/workloads/demo", workloadRoutes);
    await screen.findByTestId("validation-ok");
    fireEvent.change(screen.getByTestId("run-labels"), { target: { value: "index=dynamic" } });
    fireEvent.click(screen.getByTestId("start-run"));

    const going = await screen.findByTestId("run-in-progress");
    await waitFor(() => expect(going.querySelector("a")?.getAttribute("href")).toBe("/runs/20261122-100000-demo-abcd/live"));
    expect(screen.queryByTestId("live-page")).toBeNull();
    // The unchanged file is started by name, with the labels typed.
    expect(calls.find((c) => c.method === "POST" && c.path === "/api/runs")?.body).toEqual({
      workload: "demo",
      labels: { index: "dynamic" },
    });
  });

  it("goes to the live page of the run it started", async () => {
    stubServer(workloadServer(VALID, () => ({ status: 201, json: { run_id: "20261122-110000-demo-beef" } })));
    renderAt("/workloads/demo", workloadRoutes);
    await screen.findByTestId("validation-ok");
    fireEvent.click(screen.getByTestId("start-run"));
    expect(await screen.findByTestId("live-page")).toBeTruthy();
  });
});

const agent = (name: string, state: string, offset: number | null, shard: string | null, skew: number | null = null) => ({
  id: `id-${name}`,
  name,
  host: "h",
  version: "0.1.0",
  cores: 2,
  state,
  seen_ms_ago: state === "lost" ? 7000 : 200,
  clock_offset_ms: offset,
  target_skew_ms: skew,
  shard,
  phase: shard ? "round 1 · write" : null,
  connected_s: 60,
});

const fleetRun = (run_id: string) => ({
  run_id,
  workload: "w",
  state: "running",
  merged_run: null,
  error: null,
  warnings: [],
  started_s_ago: 12,
  events: [],
  events_total: 0,
  shards: [
    { index: 0, agent: "a", state: "running", phase: "round 1 · write", operations: 1234, local_run_id: "x" },
    { index: 1, agent: "b", state: "lost", phase: "before · fill", operations: 55, local_run_id: "y" },
  ],
});

describe("agents page", () => {
  it("says how to connect an agent when none is", async () => {
    stubServer((_method, path) => (path === "/api/agents" ? { status: 200, json: { agents: [], run: null } } : { status: 404 }));
    renderAt("/agents", <Route path="/agents" element={<AgentsPage />} />);
    expect((await screen.findByTestId("empty-state")).textContent).toContain("keystorm agent --controller");
  });

  it("shows each agent's state and clock offset, and the shards of the run going", async () => {
    const calls = stubServer((method, path) => {
      if (path === "/api/agents")
        return {
          status: 200,
          json: {
            agents: [
              { ...agent("a", "running", 3, "0/2", 1000), endpoint: "http://gw2.example:8080" },
              agent("b", "lost", 900, "1/2", -180_000),
              agent("c", "idle", null, null),
            ],
            run: fleetRun("20261125-100000-w-abcd"),
          },
        };
      if (path === "/api/workloads") return { status: 200, json: [{ name: "demo", description: "d", size_bytes: 1 }] };
      if (method === "POST" && path === "/api/runs") return { status: 201, json: { run_id: "r" } };
      return { status: 404, json: { error: "not_found", detail: path } };
    });
    renderAt("/agents", <Route path="/agents" element={<AgentsPage />} />);
    const rows = await screen.findAllByTestId("agent-row");
    expect(rows.map((r) => r.getAttribute("data-state"))).toEqual(["running", "lost", "idle"]);
    expect(rows[1].querySelector(".bad")?.textContent).toBe("+900 ms");
    // Which endpoint each agent drives: its own, else the workload's.
    expect(screen.getAllByTestId("agent-endpoint").map((c) => c.textContent)).toEqual(["http://gw2.example:8080", "workload's", "workload's"]);
    // The target's clock: a second off is what an HTTP date can tell; three minutes is a warning.
    const skews = screen.getAllByTestId("target-skew");
    expect(skews.map((c) => [c.textContent, c.classList.contains("bad")])).toEqual([
      ["+1000 ms", false],
      ["−180000 ms", true],
      ["–", false],
    ]);
    const shards = screen.getAllByTestId("shard-row");
    expect(shards.map((r) => r.getAttribute("data-state"))).toEqual(["running", "lost"]);
    expect(shards[0].textContent).toContain("1,234");
    // One run across agents at a time: no start form while one goes.
    expect(screen.queryByTestId("fleet-start")).toBeNull();
    expect(calls.some((c) => c.method === "POST")).toBe(false);
  });

  it("starts a workload on the number of agents asked for", async () => {
    const calls = stubServer((method, path) => {
      if (path === "/api/agents") return { status: 200, json: { agents: [agent("a", "idle", 1, null), agent("b", "idle", -2, null)], run: null } };
      if (path === "/api/workloads") return { status: 200, json: [{ name: "demo", description: "d", size_bytes: 1 }] };
      if (method === "POST" && path === "/api/runs") return { status: 201, json: { run_id: "r" } };
      return { status: 404, json: { error: "not_found", detail: path } };
    });
    renderAt("/agents", <Route path="/agents" element={<AgentsPage />} />);
    await screen.findByText("demo");
    fireEvent.change(screen.getByLabelText("agents"), { target: { value: "2" } });
    expect(screen.getByTestId("fleet-start-button").textContent).toBe("Start on 2 of 2 idle agents");
    fireEvent.click(screen.getByTestId("fleet-start-button"));
    await waitFor(() => expect(calls.some((c) => c.method === "POST" && c.path === "/api/runs")).toBe(true));
    expect(calls.find((c) => c.method === "POST" && c.path === "/api/runs")?.body).toEqual({ workload: "demo", agents: 2 });
  });

  it("shows the shards of a run across agents on that run's live page only", async () => {
    stubServer((_m, path) => (path === "/api/agents" ? { status: 200, json: { agents: [], run: fleetRun("r1") } } : { status: 404 }));
    renderAt("/live", <Route path="/live" element={<LiveShards runId="r1" running />} />);
    await screen.findByTestId("live-shards");
    const rows = screen.getAllByTestId("shard-row");
    expect(rows.map((r) => r.getAttribute("data-state"))).toEqual(["running", "lost"]);
    expect(screen.getByTestId("live-shards").textContent).toContain("Merged live from 2 agents");
    expect(rows[0].textContent).toContain("1,234");
  });

  it("shows no shards on the live page of another run", async () => {
    stubServer((_m, path) =>
      path === "/api/agents"
        ? { status: 200, json: { agents: [], run: fleetRun("other") } }
        : { status: 404 },
    );
    const both = (
      <>
        <LiveShards runId="r1" running={false} />
        <LiveShards runId="other" running={false} />
      </>
    );
    renderAt("/live", <Route path="/live" element={both} />);
    // Once the run across agents is known, only its own live page shows the shards.
    expect((await screen.findByTestId("live-shards")).textContent).toContain("Merged live from 2 agents");
    expect(screen.getAllByTestId("live-shards")).toHaveLength(1);
  });

  it("writes clock offsets with a sign and warns past a quarter second", () => {
    expect(fmtOffset(12)).toEqual({ text: "+12 ms", warn: false });
    expect(fmtOffset(-300)).toEqual({ text: "−300 ms", warn: true });
    expect(fmtOffset(null).text).toBe("–");
  });
});
