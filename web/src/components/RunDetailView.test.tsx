// The phases table's errors cell: failed operations, and the retries next to them with
// the failed attempts by class in the title when a workload retried.
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { SummaryRow } from "../api/types";
import { RoundsPhasesTable, defaultChoice, errorsTitle } from "./RunDetailView";

afterEach(cleanup);

const base = {
  section: "round",
  round: 1,
  phase: "read",
  op: "get",
  objects_at_start: 100,
  started_at: "2026-11-22T10:00:03Z",
  duration_s: 5,
  client_cpu_s: 1,
  ops: 1000,
  errors: 2,
  error_rate: 0.002,
  error_classes: { timeout: 2 },
  ops_per_sec: 200,
  bytes: 0,
  mib_per_sec: 0,
  keys: 0,
  keys_per_sec: 0,
  latency_us: { min: 1, mean: 2, p50: 100, p90: 200, p99: 1000, p999: 2000, max: 3000 },
} as SummaryRow;

describe("errors cell", () => {
  it("shows no retries for a run without them", () => {
    render(<RoundsPhasesTable rows={[{ ...base, retries: 0, attempt_error_classes: { timeout: 2 } }]} />);
    expect(screen.queryByTestId("row-retries")).toBeNull();
    expect(errorsTitle(base)).toBe("timeout: 2");
  });

  it("shows the retries and the failed attempts by class", () => {
    const row = { ...base, retries: 40, attempt_error_classes: { slowdown: 30, timeout: 12 } };
    render(<RoundsPhasesTable rows={[row]} />);
    expect(screen.getByTestId("row-retries").textContent).toContain("+40 retried");
    expect(errorsTitle(row)).toBe("failed operations: timeout: 2; failed attempts: slowdown: 30, timeout: 12");
  });
});

describe("phase explorer", () => {
  it("opens on the phase measured the longest, not the last one", () => {
    const rows = [
      { ...base, section: "before", round: null, phase: "fill", op: "put", duration_s: 4 },
      { ...base, phase: "write", op: "put", duration_s: 10 },
      { ...base, round: 2, phase: "write", op: "put", duration_s: 10 },
      { ...base, section: "after", round: null, phase: "list", op: "list", duration_s: 1 },
    ] as SummaryRow[];
    expect(defaultChoice(rows)).toEqual({ section: "round", round: 1, phase: "write", op: "put" });
    expect(defaultChoice([])).toBeUndefined();
  });
});

describe("bandwidth column", () => {
  it("shows a dash for a LIST row and MiB/s for a GET row", () => {
    render(
      <RoundsPhasesTable
        rows={[
          { ...base, op: "list", mib_per_sec: 0 },
          { ...base, op: "get", mib_per_sec: 3.5 },
        ] as SummaryRow[]}
      />,
    );
    const cells = screen.getAllByRole("row").slice(1).map((r) => r.textContent ?? "");
    expect(cells[0]).toContain("–");
    expect(cells[0]).not.toContain("MiB/s");
    expect(cells[1]).toContain("3.50 MiB/s");
  });
});

describe("tail columns", () => {
  const counted = (counts: number[], marks = [500_000, 1_000_000, 10_000_000]) =>
    ({ ...base.latency_us, slower_than: marks.map((mark_us, i) => ({ mark_us, count: counts[i] })) }) as SummaryRow["latency_us"];

  it("give each of the run's marks a column counting what p99.9 hides, when some phase had any", () => {
    const fast = { ...base, latency_us: counted([0, 0, 0]) };
    const held = { ...base, phase: "write", op: "put", latency_us: counted([40, 16, 3]) } as SummaryRow;
    render(<RoundsPhasesTable rows={[fast, held, base]} />);
    const heads = screen.getAllByRole("columnheader").map((h) => h.textContent);
    expect(heads.filter((h) => h?.startsWith("≥"))).toEqual(["≥ 500 ms", "≥ 1 s", "≥ 10 s"]);
    const cells = screen.getAllByTestId("row-slow").map((c) => c.textContent);
    // Counted and none, counted and some, a row counted at no mark (an older run).
    expect(cells).toEqual(["0", "0", "0", "40", "16", "3", "–", "–", "–"]);
    cleanup();
    render(<RoundsPhasesTable rows={[fast, base]} />);
    expect(screen.queryAllByTestId("row-slow")).toHaveLength(0);
  });

  it("follow the marks the workload chose", () => {
    const held = { ...base, op: "put", latency_us: counted([5, 1], [250_000, 1_500_000]) } as SummaryRow;
    render(<RoundsPhasesTable rows={[held]} />);
    const heads = screen.getAllByRole("columnheader").map((h) => h.textContent);
    expect(heads.filter((h) => h?.startsWith("≥"))).toEqual(["≥ 250 ms", "≥ 1.5 s"]);
  });
});
