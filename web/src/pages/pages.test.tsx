// Component behaviour: the runs table's filter and empty states, and the editor
// marking the line a problem is on.
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryRouter } from "react-router-dom";
import type { RunInfo } from "../api/types";
import { YamlEditor } from "../components/YamlEditor";
import { RunsTable, filterRuns, noHeadline } from "./RunsPage";

afterEach(cleanup);

const run = (id: string, labels: Record<string, string>, status: RunInfo["status"] = "completed"): RunInfo => ({
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
  });
});
