// Component behaviour: the runs table's filter and empty states, and the editor
// marking the line a problem is on.
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryRouter, useLocation } from "react-router-dom";
import type { RunDetail, RunInfo, SummaryRow } from "../api/types";
import { YamlEditor } from "../components/YamlEditor";
import { RoundsPhasesTable } from "../components/RunDetailView";
import { compareLegend } from "./ComparePage";
import { BehindNotes, IntegrityNotes } from "../components/CompareView";
import { CompareRounds } from "../components/CompareRounds";
import { comparePanels } from "../lib/compare";
import { OP_COLOURS } from "../lib/palette";
import { NoPhaseYet } from "./RunDetailPage";
import { RunsTable, bucketsOf, filterRuns, noHeadline } from "./RunsPage";

afterEach(cleanup);

const run = (id: string, labels: Record<string, string>, status: RunInfo["status"] = "completed", buckets: string[] = []): RunInfo => ({
  run_id: id,
  workload: "demo",
  status,
  labels,
  notes: "",
  started_at: "2026-11-22T10:00:00Z",
  ended_at: "2026-11-22T10:01:00Z",
  duration_s: 60,
  endpoint: "embedded",
  headline: [{ op: "put", ops_per_sec: 1234, p99_us: 4500 }],
  buckets,
  verdict: { overall: status === "completed" ? "as_asked" : "not_completed", status, findings: [] },
});

describe("runs table", () => {
  const runs = [run("r1", { bucket: "dynamic" }), run("r2", { bucket: "presharded" }), run("r3", {}, "failed")];

  it("filters by label text and status", () => {
    expect(filterRuns(runs, "bucket=pre", "").map((r) => r.run_id)).toEqual(["r2"]);
    expect(filterRuns(runs, "", "failed").map((r) => r.run_id)).toEqual(["r3"]);
    expect(filterRuns(runs, "", "").length).toBe(3);
  });

  it("shows what to do when nothing matches, and compares only two or more", () => {
    render(
      <MemoryRouter>
        <RunsTable runs={runs} />
      </MemoryRouter>,
    );
    const compare = screen.getByTestId("compare-button") as HTMLButtonElement;
    expect(compare.disabled).toBe(true);
    fireEvent.click(screen.getByLabelText("select r1"));
    fireEvent.click(screen.getByLabelText("select r2"));
    expect(compare.disabled).toBe(false);
    fireEvent.change(screen.getByTestId("runs-filter"), { target: { value: "no-such-label" } });
    expect(screen.getByTestId("empty-state").textContent).toContain("No run matches");
    expect(screen.queryByTestId("runs-table")).toBeNull();
  });
});

describe("runs table's verdicts", () => {
  it("badges a run that fell behind or lost objects as such, not as a plain completed run", () => {
    const behind = run("behind", {});
    behind.verdict = {
      overall: "fell_behind",
      status: "completed",
      findings: [
        { kind: "fell_behind", text: "round 1 read: asked 40000 ops/s, sent 2135 ops/s (5 %)" },
        { kind: "resumed", text: "resumed 1 time" },
      ],
    };
    const lost = run("lost", {});
    lost.verdict = {
      overall: "not_as_written",
      status: "completed",
      findings: [{ kind: "not_as_written", text: "audits found 141 missing, 0 doubled, 0 extra, 0 size mismatches" }],
    };
    render(
      <MemoryRouter>
        <RunsTable runs={[run("fine", {}), behind, lost, run("stopped", {}, "interrupted")]} />
      </MemoryRouter>,
    );
    const badges = (id: string) =>
      Array.from(screen.getByTestId(`run-row-${id}`).querySelectorAll("[data-testid=verdict] .badge")).map((b) => [
        b.textContent,
        b.className,
        b.getAttribute("title"),
      ]);
    expect(badges("fine")).toEqual([["completed as asked", "badge verdict-good", expect.any(String)]]);
    expect(badges("behind")).toEqual([
      ["fell behind", "badge verdict-warn", "round 1 read: asked 40000 ops/s, sent 2135 ops/s (5 %)"],
      ["resumed: resumed 1 time", "badge verdict-info", "resumed 1 time"],
    ]);
    expect(badges("lost")[0].slice(0, 2)).toEqual(["not as written", "badge verdict-bad"]);
    expect(badges("stopped")).toEqual([["interrupted", "badge status-interrupted", null]]);
  });
});

describe("runs table's bucket filter", () => {
  const runs = [
    run("fill", {}, "completed", ["keys-demo"]),
    run("read", {}, "completed", ["keys-demo", "prod-logs"]),
    run("other", {}, "completed", ["other-bucket"]),
    run("old", {}),
  ];

  /** Where the table's page is, as the address bar shows it. */
  function Where() {
    const l = useLocation();
    return <span data-testid="where">{l.pathname + l.search}</span>;
  }

  it("keeps the runs that worked on the bucket, written or read from a listing", () => {
    expect(filterRuns(runs, "", "", "keys-demo").map((r) => r.run_id)).toEqual(["fill", "read"]);
    expect(filterRuns(runs, "", "", "prod-logs").map((r) => r.run_id)).toEqual(["read"]);
    expect(filterRuns(runs, "", "", "").length).toBe(4);
    expect(bucketsOf(runs)).toEqual(["keys-demo", "other-bucket", "prod-logs"]);
    expect(bucketsOf(runs, "gone")).toEqual(["gone", "keys-demo", "other-bucket", "prod-logs"]);
  });

  it("filters on the bucket in the address, and puts the one picked there", () => {
    render(
      <MemoryRouter initialEntries={["/runs?bucket=prod-logs"]}>
        <RunsTable runs={runs} />
        <Where />
      </MemoryRouter>,
    );
    const select = screen.getByTestId("runs-bucket-filter") as HTMLSelectElement;
    expect(select.value).toBe("prod-logs");
    expect(screen.getByTestId("run-row-read")).toBeTruthy();
    expect(screen.queryByTestId("run-row-fill")).toBeNull();
    // Each row names its buckets.
    expect(screen.getByTestId("run-row-read").textContent).toContain("keys-demo, prod-logs");
    fireEvent.change(select, { target: { value: "keys-demo" } });
    expect(screen.getByTestId("where").textContent).toBe("/runs?bucket=keys-demo");
    expect(screen.getByTestId("run-row-fill")).toBeTruthy();
    expect(screen.queryByTestId("run-row-other")).toBeNull();
    fireEvent.change(select, { target: { value: "" } });
    expect(screen.getByTestId("where").textContent).toBe("/runs");
    expect(screen.getAllByTestId(/^run-row-/)).toHaveLength(4);
  });
});

describe("yaml editor", () => {
  it("marks the problem's line in the gutter", () => {
    render(<YamlEditor value={"name: x\nbogus: 1\nbuckets: {}"} onChange={() => {}} problems={[{ line: 2, column: 1, message: "unknown field `bogus`" }]} />);
    const marked = screen.getAllByTestId("error-line");
    expect(marked).toHaveLength(1);
    expect(marked[0].textContent).toBe("2");
    expect(marked[0].getAttribute("title")).toContain("bogus");
  });
});

describe("a run with no finished phase", () => {
  it("says why its throughput cell is empty", () => {
    expect(noHeadline("killed")).toBe("killed before a phase finished");
    expect(noHeadline("running")).toBe("no phase finished yet");
    expect(noHeadline("failed")).toBe("failed before a phase finished");
    expect(noHeadline("failed", "cannot reach http://127.0.0.1:9: connection refused")).toBe(
      "failed before a phase finished: cannot reach http://127.0.0.1:9: connection refused",
    );
    expect(noHeadline("interrupted")).toBe("interrupted before a phase finished");
  });

  it("says on its page how it ended and why, not that results are coming", () => {
    render(<NoPhaseYet status="failed" error="bucket keystorm-demo: AccessDenied" />);
    expect(screen.getByText("The run failed before a phase finished.")).toBeTruthy();
    expect(screen.getByTestId("run-error").textContent).toBe("bucket keystorm-demo: AccessDenied");
    expect(screen.queryByText(/Results appear here/)).toBeNull();
    cleanup();
    render(<NoPhaseYet status="running" />);
    expect(screen.getByText(/Results appear here/)).toBeTruthy();
  });
});

describe("compare's charts", () => {
  const phaseOps = ["write · put", "read · get", "mixed · get", "mixed · put", "mixed · list", "mixed · delete"];
  const row = (phase: string, op: string, round: number, ops_per_sec: number) =>
    ({ section: "round", round, phase, op, ops_per_sec, latency_us: { p99: ops_per_sec * 10 } }) as unknown as SummaryRow;
  const runRows = (factor: number) =>
    [1, 2].flatMap((round) => phaseOps.map((po, i) => row(po.split(" · ")[0], po.split(" · ")[1], round, (i + 1) * 100 * factor)));

  it("draws one panel per round phase, each operation in its colour and each run in its marker", () => {
    const panels = comparePanels(
      [
        { id: "a", label: "#1", rows: runRows(1) },
        { id: "b", label: "#2", rows: runRows(2) },
      ],
      (r) => r.ops_per_sec,
    );
    expect(panels.map((p) => p.phase)).toEqual(["write", "read", "mixed"]);
    const mixed = panels[2];
    // Within a panel an operation occurs once per run: colour and marker tell every line apart.
    expect(mixed.overlay.series.map((s) => `${s.op}|${s.run}`)).toEqual([
      "get|0", "put|0", "list|0", "delete|0", "get|1", "put|1", "list|1", "delete|1",
    ]);
    expect(mixed.overlay.data).toHaveLength(2);
    expect(mixed.overlay.data[0]["#2 · mixed · put"]).toBe(800);
    expect(panels[0].overlay.data[0]).toEqual({ round: 1, "#1 · write · put": 100, "#2 · write · put": 200 });
  });

  it("draws no heading over nothing when the runs have no rounds", () => {
    const before = (id: string) =>
      ({
        info: { run_id: id, labels: {}, started_at: "2026-11-29T00:00:00Z" },
        manifest: { started_at: "2026-11-29T00:00:00Z" },
        summary: { rows: [{ ...row("fill", "put", 1, 100), section: "before", round: null }] },
        phases: [{ ...row("fill", "put", 1, 100), section: "before", round: null }],
      }) as unknown as RunDetail;
    const view = { metric: "ops_per_sec", setMetric: () => {}, normalised: false, setNormalised: () => {}, latencyLog: true, setLatencyLog: () => {} };
    const runs = [{ label: "#1", detail: before("a") }, { label: "#2", detail: before("b") }];
    const { container } = render(<CompareRounds runs={runs} indexById={new Map()} view={view} />);
    expect(container.textContent).toBe("");
    cleanup();
    const withRounds = runs.map((r) => ({ ...r, detail: { ...r.detail, phases: runRows(1) } as RunDetail }));
    render(<CompareRounds runs={withRounds} indexById={new Map()} view={view} />);
    expect(screen.getAllByTestId("compare-panel")).toHaveLength(3);
  });

  it("lists each operation and each run once, each standing for its lines", () => {
    const series = [0, 1].flatMap((run) =>
      ["get", "put", "list", "delete"].map((op) => ({ name: `#${run + 1} · mixed · ${op}`, run, phase: "mixed", op })),
    );
    const legend = compareLegend(series, [{ label: "#1" }, { label: "#2" }], "6 3");
    expect(legend.map((g) => g.name)).toEqual(["get", "put", "list", "delete", "#1", "#2"]);
    expect(legend[1].members).toEqual(["#1 · mixed · put", "#2 · mixed · put"]);
    expect(legend[4].members).toEqual(series.filter((s) => s.run === 0).map((s) => s.name));
    // Operations by their colour everywhere, with the percentile's dash; runs by marker.
    expect(legend.slice(0, 4).map((g) => g.colour)).toEqual(["get", "put", "list", "delete"].map((op) => OP_COLOURS[op]));
    expect(legend.slice(0, 4).every((g) => g.dash === "6 3")).toBe(true);
    expect(legend[4].marker).not.toBe(legend[5].marker);
    expect(legend[4].colour).toBe(legend[5].colour);
  });
});

describe("an open-loop phase that fell behind", () => {
  const behind = { asked_per_sec: 6000, sent_per_sec: 2316, backlog: 36840 };
  const kept = { asked_per_sec: 1000, sent_per_sec: 999.8, backlog: 0 };
  const rowWith = (phase: string, open_loop: typeof behind) =>
    ({
      section: "round",
      round: 1,
      phase,
      op: "put",
      objects_at_start: 0,
      started_at: "2026-11-22T00:00:00Z",
      duration_s: 10,
      client_cpu_s: 1,
      ops: 23160,
      errors: 0,
      error_rate: 0,
      error_classes: {},
      ops_per_sec: 2316,
      bytes: 0,
      mib_per_sec: 0,
      keys: 0,
      keys_per_sec: 0,
      latency_us: { min: 1, mean: 2, p50: 100, p90: 200, p99: 1000, p999: 2000, max: 3000 },
      schedule_lag_us: { min: 1, mean: 2, p50: 30, p90: 60, p99: 1_630_000, p999: 2_000_000, max: 2_000_000 },
      open_loop,
    }) as unknown as SummaryRow;

  it("says what it sent of the rate asked, and how late, on the run page", () => {
    render(<RoundsPhasesTable rows={[rowWith("write", behind), rowWith("paced", kept)]} />);
    const cells = screen.getAllByTestId("row-open-loop");
    expect(cells[0].textContent).toBe("2,316 of 6,000 ops/s, 36,840 never sent");
    expect(cells[0].className).toContain("bad");
    expect(cells[1].className).not.toContain("bad");
    expect(screen.getAllByTestId("row-schedule-lag")[0].textContent).toBe("1.63 s");
  });

  it("is named on the compare page", () => {
    const detail = (rows: SummaryRow[]) => ({ summary: { format_version: 1, run_id: "r", rows, totals: [] }, phases: rows }) as unknown as RunDetail;
    render(<BehindNotes runs={[{ label: "#1", detail: detail([rowWith("write", behind)]) }, { label: "#2", detail: detail([rowWith("write", kept)]) }]} />);
    const notes = screen.getByTestId("behind-notes");
    expect(notes.textContent).toContain("#1 · round 1 · write: sent 2,316 of 6,000 ops/s, 36,840 never sent");
    expect(notes.textContent).not.toContain("#2");
  });
});

describe("compare's integrity", () => {
  const phase = { section: "round", round: 1, index: 0, name: "read" } as never;
  it("shows each run's verdict, the one that lost objects in red, and nothing when no run verified", () => {
    const clean = { verified_phases: [phase], verified_gets: 500, corrupt: 0, missing: 0, examples: [], audits: [] };
    const lost = { ...clean, missing: 4 };
    const counts = { expected: 900, listed: 899, missing: 2, doubled: 1, extra: 0, size_mismatch: 0 };
    const audit = { phase, bucket: "b", counts, examples: [], list_seconds: 1, compare_seconds: 0.1 };
    const misListed = { ...clean, verified_phases: [], audits: [audit] };
    render(
      <IntegrityNotes
        runs={[
          { label: "#1", integrity: clean },
          { label: "#2", integrity: lost },
          { label: "#3", integrity: misListed },
        ]}
      />,
    );
    const rows = screen.getAllByTestId("compare-integrity-row");
    expect(rows[0].textContent).toContain("Verified 500 GETs in 1 phase: every body as written");
    expect(rows[1].textContent).toContain("Not as written: 0 corrupt, 4 missing");
    expect(rows[1].children[1].className).toContain("bad");
    // A run that verified nothing but whose audit found listings wrong is red too.
    expect(rows[2].textContent).toContain("Listings not as written: 2 missing, 1 doubled, 0 extra, 0 size mismatches (1 audit of 900 keys)");
    expect(rows[2].children[1].className).toContain("bad");
    cleanup();
    const none = { verified_phases: [], verified_gets: 0, corrupt: 0, missing: 0, examples: [], audits: [] };
    const { container } = render(<IntegrityNotes runs={[{ label: "#1", integrity: none }, { label: "#2", integrity: null }]} />);
    expect(container.textContent).toBe("");
  });
});
