// The running phase's thresholds on the live page: the latest judgement so far wins and
// a new phase clears it; each shows met or missed so far with its figure, and the note
// says when a miss stops the run.
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { PhaseRef, ThresholdsSoFar } from "../api/types";
import { applyEvent, initialLive } from "../lib/live";
import { LiveThresholds, thresholdsNote } from "./LiveThresholds";

afterEach(cleanup);

const phase: PhaseRef = { section: "before", round: null, index: 1, name: "read" };

function soFar(measured_s: number, p99_passed: boolean, more: Partial<ThresholdsSoFar> = {}): ThresholdsSoFar {
  return {
    phase,
    measured_s,
    checks: [
      { phase: "before read", expect: "get.p99 < 1ms", actual: 8400, actual_text: "8.40 ms", passed: p99_passed },
      { phase: "before read", expect: "get.p50 < 10s", actual: 2700, actual_text: "2.70 ms", passed: true },
    ],
    ...more,
  };
}

describe("thresholds so far on the live page", () => {
  it("keeps the latest judgement, and drops it when the next phase starts", () => {
    let s = applyEvent(initialLive(), { id: 0, name: "thresholds_so_far", data: soFar(1, true) });
    s = applyEvent(s, { id: 1, name: "thresholds_so_far", data: soFar(2, false) });
    expect(s.thresholds?.measured_s).toBe(2);
    // A replayed older event changes nothing.
    s = applyEvent(s, { id: 0, name: "thresholds_so_far", data: soFar(1, true) });
    expect(s.thresholds?.checks[0].passed).toBe(false);
    const started = { phase: { ...phase, name: "write" }, position: 2, end: { duration: "30s" }, objects: 0 };
    s = applyEvent(s, { id: 2, name: "phase_started", data: started });
    expect(s.thresholds).toBeUndefined();
  });

  it("shows each threshold met or missed so far with its figure", () => {
    render(<LiveThresholds thresholds={soFar(12, false)} />);
    const box = screen.getByTestId("live-thresholds");
    expect(box.classList.contains("warn")).toBe(true);
    expect(box.textContent).toContain("1 of 2 missed");
    expect(screen.getByTestId("live-threshold-missed").textContent).toBe("get.p99 < 1ms8.40 msmissed so far");
    expect(screen.getByTestId("live-threshold-met").textContent).toBe("get.p50 < 10s2.70 msmet so far");
  });

  it("says whether and when a miss stops the run", () => {
    expect(thresholdsNote(soFar(12, false))).toBe(
      "on the 12.0 s measured so far; a miss is shown, not acted on (no expect_abort_after)",
    );
    expect(thresholdsNote(soFar(12, false, { abort_after_s: 30 }))).toBe(
      "on the 12.0 s measured so far; one still missed once 30.0 s are measured stops the run (18.0 s to go)",
    );
    expect(thresholdsNote(soFar(31, true, { abort_after_s: 30 }))).toBe(
      "on the 31.0 s measured so far; a miss now stops the run (expect_abort_after 30.0 s)",
    );
    const stopping = soFar(30, false, { abort_after_s: 30, stops_run: "get.p99 < 1ms" });
    expect(thresholdsNote(stopping)).toBe(
      "get.p99 < 1ms missed on the 30.0 s measured so far: it stops the run (expect_abort_after 30.0 s)",
    );
    render(<LiveThresholds thresholds={stopping} />);
    expect(screen.getByTestId("live-threshold-missed").textContent).toBe("get.p99 < 1ms8.40 msmissed: stops the run");
  });

  it("shows nothing before a phase with thresholds measured anything", () => {
    const { container } = render(<LiveThresholds thresholds={undefined} />);
    expect(container.textContent).toBe("");
  });
});
