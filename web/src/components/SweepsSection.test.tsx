// Sweeps and searches on the run page: the sentence that says where a sweep stopped
// keeping up or what rate a search found, and every step in a table.
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { sweepStepRow } from "../lib/test-rows";
import { SweepsSection } from "./SweepsSection";

afterEach(cleanup);


describe("sweeps and searches", () => {
  it("says a sweep's knee and a search's rate, with every step", () => {
    const rows = [
      sweepStepRow("put@1000", "put", 1000, 1000, 2700),
      sweepStepRow("put@2000", "put", 2000, 1995, 5600),
      sweepStepRow("put@4000", "put", 4000, 3590, 211_300),
      sweepStepRow("find@100", "find", 100, 100, 20_500),
      sweepStepRow("find@400", "find", 400, 391, 41_700),
      sweepStepRow("find@418", "find", 418, 391, 107_500),
    ];
    const searches = [
      {
        section: "round" as const,
        round: 1,
        phase: "find",
        slo: ["put.p99 < 50ms"],
        sustainable_rate: 400,
        bracket: [400, 418] as [number, number],
        confirmed: true,
        steps: 3,
        judged: [
          { phase: "find@100", passed: true },
          { phase: "find@400", passed: true },
          { phase: "find@418", passed: false },
        ],
      },
    ];
    render(<SweepsSection rows={rows} searches={searches} />);
    expect(screen.getByTestId("sweep-knee").textContent).toBe("sweep put, round 1, put: kept up to 2,000 ops/s (p50 2.80 ms, p99 5.60 ms); behind from 4,000 ops/s (sent 90 %, p99 211.3 ms)");
    expect(screen.getByTestId("search-result").textContent).toBe(
      "search find, round 1: sustainable 400 ops/s at put.p99 < 50ms (between 400 ops/s and 418 ops/s, both ends confirmed; 3 steps)",
    );
    const tables = screen.getAllByTestId("sweep-steps");
    expect(tables).toHaveLength(2);
    const kept = [...tables[0].querySelectorAll("tbody tr")].map((r) => r.lastElementChild?.textContent);
    expect(kept).toEqual(["yes", "yes", "fell behind"]);
    // A search's steps as the search judged them (its SLO, the rate sent and answered).
    const passed = [...tables[1].querySelectorAll("tbody tr")].map((r) => r.lastElementChild?.textContent);
    expect(passed).toEqual(["passed", "passed", "failed"]);
    expect(screen.getAllByTestId("sweep-chart")).toHaveLength(2);
  });

  it("says when the client, not the store, failed at the bracket's upper end", () => {
    const rows = [
      sweepStepRow("find@100", "find", 100, 100, 20_500),
      sweepStepRow("find@200", "find", 200, 200, 20_900),
      sweepStepRow("find@400", "find", 400, 310, 61_000),
    ];
    const search = {
      section: "round" as const,
      round: 1,
      phase: "find",
      slo: ["put.p99 < 50ms"],
      sustainable_rate: 200,
      bracket: [200, 400] as [number, number],
      confirmed: false,
      steps: 3,
      judged: [
        { phase: "find@100", passed: true },
        { phase: "find@200", passed: true },
        { phase: "find@400", passed: false, failed_by: "client" as const },
      ],
      limited_by_client: true,
    };
    render(<SweepsSection rows={rows} searches={[search]} />);
    expect(screen.getByTestId("search-result").textContent).toBe(
      "search find, round 1: sustainable 200 ops/s at put.p99 < 50ms (between 200 ops/s and 400 ops/s, not confirmed; 3 steps); " +
        "the client, not the store, failed at 400 ops/s: its requests left late (too few workers for the store's latency, or too little CPU), so the store may sustain more",
    );
    const said = [...screen.getByTestId("sweep-steps").querySelectorAll("tbody tr")].map((r) => r.lastElementChild?.textContent);
    expect(said).toEqual(["passed", "passed", "failed: the client fell behind"]);
    cleanup();
    // The same search with the store failing at 400: neither sentence says the client.
    const byStore = { ...search, limited_by_client: false, judged: search.judged.map((j) => ({ ...j, failed_by: j.passed ? undefined : ("store" as const) })) };
    render(<SweepsSection rows={rows} searches={[byStore]} />);
    expect(screen.getByTestId("search-result").textContent).not.toContain("client");
    const again = [...screen.getByTestId("sweep-steps").querySelectorAll("tbody tr")].map((r) => r.lastElementChild?.textContent);
    expect(again).toEqual(["passed", "passed", "failed"]);
  });

  it("says which steps of a search over agents were run again, not judged", () => {
    const rows = [
      sweepStepRow("find@100", "find", 100, 100, 20_500),
      sweepStepRow("find@200", "find", 200, 150, 20_900),
      sweepStepRow("find@200#2", "find", 200, 200, 21_000),
    ];
    const searches = [
      {
        section: "round" as const,
        round: 1,
        phase: "find",
        slo: ["put.p99 < 50ms"],
        sustainable_rate: 200,
        bracket: [200, null] as [number, number | null],
        confirmed: false,
        steps: 2,
        judged: [
          { phase: "find@100", passed: true },
          { phase: "find@200#2", passed: true },
        ],
        voided: ["find@200"],
      },
    ];
    render(<SweepsSection rows={rows} searches={searches} />);
    expect(screen.getByTestId("search-result").textContent).toContain("2 steps, and find@200 run again: a shard restarted in the middle of it)");
    const said = [...screen.getByTestId("sweep-steps").querySelectorAll("tbody tr")].map((r) => r.lastElementChild?.textContent);
    expect(said).toEqual(["passed", "not judged: run again", "passed"]);
  });

  it("shows nothing for a run without sweeps", () => {
    const { container } = render(<SweepsSection rows={[sweepStepRow("put", "", 10, 10, 1)].map((r) => ({ ...r, sweep: null }))} />);
    expect(container.textContent).toBe("");
  });
});
