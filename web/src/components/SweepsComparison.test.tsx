// Two runs' searches compared: each run's sustainable rate with its bracket in one
// table, their curves on one chart.
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { RunDetail } from "../api/types";
import { sweepStepRow } from "../lib/test-rows";
import { SweepsComparison } from "./SweepsComparison";

afterEach(cleanup);

function run(rate: number, found: number | null): { label: string; detail: RunDetail } {
  const rows = [sweepStepRow("fill@500", "fill", 500, 500, 9_000), sweepStepRow(`fill@${rate}`, "fill", rate, rate * 0.8, 90_000)];
  const searches = [{ section: "round", round: 1, phase: "fill", slo: ["put.p99 < 50ms"], sustainable_rate: found, bracket: [found ?? 0, rate], confirmed: true, steps: 2 }];
  return { label: `#${rate}`, detail: { summary: { format_version: 1, run_id: String(rate), rows, totals: [], searches } } as unknown as RunDetail };
}

describe("sweeps compared", () => {
  it("puts each run's sustainable rate and bracket side by side, over one chart", () => {
    render(<SweepsComparison runs={[run(1200, 1150), run(700, null)]} />);
    const outcomes = screen.getAllByTestId("compare-sweep-outcome").map((r) => r.textContent?.trim());
    expect(outcomes).toEqual(["#1200sustainable 1,150 ops/s (between 1,150 and 1,200 ops/s; confirmed)", "#700none sustainable"]);
    expect(screen.getAllByTestId("compare-sweep-chart")).toHaveLength(1);
  });

  it("shows nothing when no run swept or searched", () => {
    const plain = { label: "#1", detail: { summary: { format_version: 1, run_id: "a", rows: [], totals: [] } } as unknown as RunDetail };
    const { container } = render(<SweepsComparison runs={[plain]} />);
    expect(container.textContent).toBe("");
  });
});
