// The compare page's verdicts as drawn: each run's paragraph first, then the changes
// beyond the noise largest first, then every metric; only improved and regressed
// coloured, the grey ones saying why; the rounds switch only where phases have rounds.
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Change, Comparison } from "../api/types";
import { CompareVerdicts, VerdictControls } from "./CompareVerdicts";

afterEach(cleanup);

const story = { reshards: 0, reshard_s: 0, stalls: 0, stall_s: 0, held_writes: 0, longest_write_us: 0 };
const label = (id: string) => ({ run_id: id, workload: "w", started_at: "2026-11-22T10:00:00Z" });

function change(p: Partial<Change> & Pick<Change, "metric" | "verdict">): Change {
  return { section: "round", round: 1, phase: "write", op: "put", better: "higher", why: "", ...p };
}

const changes: Change[] = [
  change({ metric: "ops_per_sec", verdict: "improved", base: { value: 1000, low: 990, high: 1010 }, new: { value: 1100, low: 1090, high: 1110 }, ratio: { value: 1.1, low: 1.08, high: 1.12 }, why: "+10.0 % (+8.0 % to +12.0 %), beyond the ±2 % noise floor" }),
  change({ metric: "p50", better: "lower", verdict: "regressed", ratio: { value: 2, low: 1.9, high: 2.1 }, why: "+100 %" }),
  change({ metric: "p99", better: "lower", verdict: "inconclusive", why: "base: 4 measured seconds; an interval needs at least 10" }),
  change({ metric: "p99.9", better: "lower", verdict: "lag", why: "mostly the client's schedule lag (an open loop that could not send on time), not the store's latency" }),
  change({ metric: "mib_per_sec", verdict: "no_change", ratio: { value: 1.001, low: 0.995, high: 1.007 }, why: "+0.1 % (−0.5 % to +0.7 %), within the ±2 % noise floor" }),
  change({ round: null, all_rounds: true, metric: "ops_per_sec", verdict: "regressed", ratio: { value: 0.5, low: 0.4, high: 0.6 } }),
];

const comparison: Comparison = {
  base: label("a"),
  base_index: story,
  noise_floor: 0.02,
  confidence: 0.95,
  tail_marks_us: [1_000_000, 10_000_000],
  runs: [
    {
      run: label("b"),
      paragraph: "Throughput of b against a: write (rounds together) put −50.0 % (−60.0 % to −40.0 %), regressed.",
      index: story,
      counts: { improved: 1, regressed: 2, no_change: 1, inconclusive: 1, not_judged: 1 },
      changes,
    },
  ],
};

const source = { label: (id: string) => `run ${id}`, rows: () => [] };

describe("the compare page's verdicts", () => {
  it("leads with the paragraph, then the real changes largest first, then every metric", () => {
    render(<CompareVerdicts comparison={comparison} source={source} view="each" />);
    const run = screen.getByTestId("judged-run");
    const text = run.textContent ?? "";
    expect(text.indexOf("Throughput of b against a")).toBeLessThan(text.indexOf("Changes beyond the noise"));
    expect(text.indexOf("Changes beyond the noise")).toBeLessThan(text.indexOf("Every metric"));
    // The doubling of p50 outweighs +10 % of throughput; the rounds-together row is not in this view.
    expect(screen.getAllByTestId("real-change").map((r) => r.children[3].textContent)).toEqual(["p50", "ops_per_sec"]);
    expect(screen.getAllByTestId("verdict-row")).toHaveLength(5);
    expect(screen.getByTestId("judged-floor").textContent).toContain("±2 % noise floor");
    // Counted over the rows shown (the rounds-together regression is not among them).
    expect(screen.getByTestId("judged-counts").textContent).toBe("1 improved, 1 regressed, 1 no change, 1 inconclusive, 1 not judged");
  });

  it("colours only improved and regressed, and greys the rest with why", () => {
    render(<CompareVerdicts comparison={comparison} source={source} view="each" />);
    for (const row of screen.getAllByTestId("verdict-row")) {
      const cell = within(row).getByTestId("verdict-cell");
      const verdict = row.getAttribute("data-verdict");
      const expected = verdict === "improved" ? "better" : verdict === "regressed" ? "worse" : "muted";
      expect(cell.className, `${verdict}`).toBe(expected);
      // A grey verdict says why; a coloured one keeps it in its title.
      expect(within(row).queryByTestId("verdict-why") === null, `${verdict}`).toBe(expected !== "muted");
    }
    const byMetric = (m: string) => screen.getAllByTestId("verdict-row").find((r) => r.getAttribute("data-metric") === m)!;
    expect(byMetric("p99").textContent).toContain("an interval needs at least 10");
    expect(byMetric("p99.9").textContent).toContain("not judged: mostly schedule lag");
    expect(byMetric("ops_per_sec").textContent).toContain("1,000 ops/s ±1.0 %");
    expect(byMetric("ops_per_sec").textContent).toContain("+10.0 % (+8.0 % to +12.0 %)");
  });

  it("shows a round phase's rounds together when asked", () => {
    render(<CompareVerdicts comparison={comparison} source={source} view="together" />);
    const rows = screen.getAllByTestId("verdict-row");
    expect(rows).toHaveLength(1);
    expect(rows[0].textContent).toContain("write (all rounds)");
    expect(screen.getAllByTestId("real-change")).toHaveLength(1);
  });

  it("says so when no change is beyond the noise, and whether the other view has some", () => {
    const only = (keep: (c: Change) => boolean) => ({ ...comparison, runs: [{ ...comparison.runs[0], changes: changes.filter(keep) }] });
    const { rerender } = render(<CompareVerdicts comparison={only((c) => c.verdict !== "improved" && c.verdict !== "regressed")} source={source} view="each" />);
    expect(screen.getByTestId("no-real-change").textContent).toBe("No change beyond the noise.");
    rerender(<CompareVerdicts comparison={only((c) => !!c.all_rounds || (c.verdict !== "improved" && c.verdict !== "regressed"))} source={source} view="each" />);
    expect(screen.getByTestId("no-real-change").textContent).toBe(
      "No change beyond the noise round by round; 1 with each phase's rounds together (switch Rounds above).",
    );
  });

  it("offers the noise floors, the one asked for among them, and the rounds switch only where phases have rounds", () => {
    const setNoiseFloor = vi.fn();
    const controls = (withRounds: boolean, noiseFloor = 0.02) => (
      <VerdictControls noiseFloor={noiseFloor} setNoiseFloor={setNoiseFloor} roundsView="each" setRoundsView={() => {}} withRounds={withRounds} />
    );
    const { rerender } = render(controls(false));
    expect(screen.queryByTestId("judged-rounds")).toBeNull();
    const floor = screen.getByTestId("noise-floor") as HTMLSelectElement;
    expect([...floor.options].map((o) => o.textContent)).toEqual(["±1 %", "±2 %", "±5 %", "±10 %"]);
    fireEvent.change(floor, { target: { value: "0.05" } });
    expect(setNoiseFloor).toHaveBeenCalledWith(0.05);
    rerender(controls(true, 0.03));
    expect(screen.getByTestId("judged-rounds")).toBeTruthy();
    expect([...(screen.getByTestId("noise-floor") as HTMLSelectElement).options].map((o) => o.textContent)).toEqual(["±1 %", "±2 %", "±3 %", "±5 %", "±10 %"]);
  });
});
