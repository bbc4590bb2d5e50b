import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { RunDetail } from "../api/types";
import { RunReport } from "./RunReport";

afterEach(cleanup);

const detail = (workload_text: string) =>
  ({
    info: { run_id: "r1", status: "completed", labels: {}, notes: "", duration_s: 27 },
    manifest: {
      run_id: "r1",
      workload: "demo",
      endpoint: "embedded",
      client: "aws",
      started_at: "2026-11-26T01:00:00Z",
      command_line: ["keystorm", "run", "demo.yaml"],
      merged_from: [],
    },
    summary: { rows: [], totals: [] },
    workload_text,
  }) as unknown as RunDetail;

const noIntervals = () => Promise.resolve([]);

describe("run report", () => {
  it("shows the workload the run ran, for the page and the offline report alike", () => {
    render(<RunReport data={{ detail: detail("name: demo\n") }} loadIntervals={noIntervals} empty={<p>nothing yet</p>} />);
    expect(screen.getByTestId("workload-text").textContent).toContain("name: demo");
    expect(screen.getByText("nothing yet")).toBeTruthy();
  });

  it("says so when the results hold no workload", () => {
    render(<RunReport data={{ detail: detail("") }} loadIntervals={noIntervals} empty={<p>nothing yet</p>} />);
    expect(screen.queryByTestId("workload-text")).toBeNull();
    expect(screen.getByTestId("empty-state").textContent).toContain("workload this run ran is not in its results");
  });
});
