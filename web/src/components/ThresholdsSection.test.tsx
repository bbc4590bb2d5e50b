// The workload's thresholds on the run page: each judged phase with its figure, met or
// missed, and the verdict's one badge for several thresholds missed.
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { RunVerdict } from "../api/types";
import { ThresholdsSection } from "./ThresholdsSection";
import { VerdictBadges } from "./VerdictBadges";

afterEach(cleanup);

const checks = [
  { phase: "round 1 read", expect: "get.p99 < 20ms", actual: 31200, actual_text: "31.2 ms", passed: false },
  { phase: "round 1 read", expect: "errors.rate < 0.1%", actual: 0, actual_text: "0.000 %", passed: true },
  { phase: "round 2 read", expect: "get.p99 < 20ms", actual: 25000, actual_text: "25.0 ms", passed: false },
];

describe("thresholds", () => {
  it("lists every threshold judged with the phase's figure, and says how many were missed", () => {
    render(<ThresholdsSection checks={checks} />);
    expect(screen.getByTestId("thresholds-summary").textContent).toBe(
      "2 of 3 missed: the run exits 3 (missed a threshold).",
    );
    const missed = screen.getAllByTestId("threshold-missed").map((r) => r.textContent);
    expect(missed).toEqual(["round 1 readget.p99 < 20ms31.2 msmissed", "round 2 readget.p99 < 20ms25.0 msmissed"]);
    expect(screen.getAllByTestId("threshold-met")).toHaveLength(1);
  });

  it("shows nothing for a run that set no threshold", () => {
    const { container } = render(<ThresholdsSection checks={[]} />);
    expect(container.textContent).toBe("");
  });

  it("gives thresholds missed in several phases one badge, saying each", () => {
    const verdict: RunVerdict = {
      overall: "missed_threshold",
      status: "completed",
      findings: [
        { kind: "missed_threshold", text: "round 1 read: get.p99 < 20ms missed (31.2 ms)" },
        { kind: "missed_threshold", text: "round 2 read: get.p99 < 20ms missed (25.0 ms)" },
        { kind: "resumed", text: "resumed 1 time" },
      ],
    };
    render(<VerdictBadges verdict={verdict} status="completed" />);
    const overall = screen.getByTestId("verdict-overall");
    expect(overall.textContent).toBe("missed a threshold");
    expect(overall.getAttribute("title")).toBe(
      "round 1 read: get.p99 < 20ms missed (31.2 ms); round 2 read: get.p99 < 20ms missed (25.0 ms)",
    );
    expect(screen.queryAllByTestId("finding-missed_threshold")).toHaveLength(0);
    expect(screen.getAllByTestId("finding-resumed")).toHaveLength(1);
  });
});
