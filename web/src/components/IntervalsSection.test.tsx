// The run page's and the report's intervals: each phase row's throughput with its
// half-width and percentiles with their ends, or why a row has none.
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { IntervalsSection } from "./IntervalsSection";

afterEach(cleanup);

describe("intervals of a run's rows", () => {
  it("shows each figure with its interval, or why a row has none", () => {
    render(
      <IntervalsSection
        rows={[
          {
            section: "round",
            round: 2,
            phase: "read",
            op: "get",
            seconds: 30,
            ops_per_sec: { value: 1367, low: 1337, high: 1397 },
            p50_us: { value: 410, low: 402, high: 418 },
            p99_us: { value: 8800, low: 8000, high: 9800 },
            p999_us: { value: 12_000, low: 11_000, high: 15_000 },
          },
          { section: "before", phase: "fill", op: "put", seconds: 4, none_because: "4 measured seconds; an interval needs at least 10" },
        ]}
      />,
    );
    const [read, fill] = screen.getAllByTestId("interval-row");
    expect(read.textContent).toContain("round 2");
    expect(screen.getByTestId("interval-throughput").textContent).toBe("1,367 ops/s ±2.2 %");
    expect(screen.getAllByTestId("interval-latency").map((c) => c.textContent)).toEqual(["410 µs (402–418)", "8.80 ms (8.00–9.80)", "12.0 ms (11.0–15.0)"]);
    expect(fill.textContent).toContain("no interval: 4 measured seconds; an interval needs at least 10");
  });

  it("is left out for a run without intervals (an older report)", () => {
    const { container } = render(<IntervalsSection rows={[]} />);
    expect(container.textContent).toBe("");
  });
});
