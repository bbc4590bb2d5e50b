import { describe, expect, it } from "vitest";
import type { SummaryRow } from "../api/types";
import { markName, markText, tailCount, tailMarks } from "./tails";

const row = (slower_than?: Array<{ mark_us: number; count: number }>) =>
  ({ latency_us: { min: 1, mean: 1, p50: 1, p90: 1, p99: 1, p999: 1, max: 1, slower_than } }) as SummaryRow;

describe("tail marks", () => {
  it("are the marks the rows were counted at, when some operation took one", () => {
    const slow = row([
      { mark_us: 500_000, count: 7 },
      { mark_us: 1_000_000, count: 2 },
    ]);
    const fast = row([
      { mark_us: 500_000, count: 0 },
      { mark_us: 1_000_000, count: 0 },
    ]);
    expect(tailMarks([fast, slow, row()])).toEqual([500_000, 1_000_000]);
    expect(tailMarks([fast, row()])).toEqual([]);
    expect(tailCount(slow, 1_000_000)).toBe(2);
    expect(tailCount(fast, 1_000_000)).toBe(0);
    expect(tailCount(row(), 1_000_000)).toBeUndefined();
  });

  it("are said exactly in the unit that fits", () => {
    expect(markText(1_000_000)).toBe("1 s");
    expect(markText(10_000_000)).toBe("10 s");
    expect(markText(1_100_000)).toBe("1.1 s");
    expect(markText(500_000)).toBe("500 ms");
    expect(markText(2_250)).toBe("2.25 ms");
  });
});

describe("markName", () => {
  it("names a mark as the server's metric names do", () => {
    expect(markName(1_000_000)).toBe("1s");
    expect(markName(500_000)).toBe("500ms");
    expect(markName(1_500)).toBe("1500us");
  });
});
