// Log axes tick at 1-2-5 and run between such values around the data.
import { describe, expect, it } from "vitest";
import { ceil125, floor125, logAxis, logTicks, valuesOf } from "./log-axis";

describe("log axis ticks", () => {
  it("are 1, 2 and 5 of each decade, never 0.2 / 0.7 / 7 / 70", () => {
    expect(logTicks(0.1, 20)).toEqual([0.1, 0.2, 0.5, 1, 2, 5, 10, 20]);
    expect(logTicks(0.1, 50, 12)).toEqual([0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50]);
    expect(logTicks(2, 5)).toEqual([2, 5]);
    expect(logTicks(0.002, 0.05)).toEqual([0.002, 0.005, 0.01, 0.02, 0.05]);
    for (const t of logTicks(1e-3, 1e4, 100)) {
      const mantissa = t / 10 ** Math.floor(Math.log10(t) + 1e-9);
      expect([1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-9), `${t}`).toBe(true);
    }
  });

  it("keep to decades, then every other decade, when 1-2-5 would crowd the axis", () => {
    expect(logTicks(0.1, 100)).toEqual([0.1, 1, 10, 100]);
    expect(logTicks(1, 1e5)).toEqual([1, 10, 100, 1000, 10_000, 100_000]);
    expect(logTicks(1, 1e12)).toEqual([1, 100, 10_000, 1e6, 1e8, 1e10, 1e12]);
    expect(logTicks(0, 10)).toEqual([]);
  });

  it("round outward to 1-2-5 values", () => {
    expect(floor125(0.7)).toBe(0.5);
    expect(floor125(7)).toBe(5);
    expect(floor125(20)).toBe(20);
    expect(floor125(1.99)).toBe(1);
    expect(ceil125(0.7)).toBe(1);
    expect(ceil125(70)).toBe(100);
    expect(ceil125(2)).toBe(2);
    expect(ceil125(2.01)).toBe(5);
  });
});

describe("a log axis for data", () => {
  it("runs from a 1-2-5 value under the smallest to one over the largest, with room", () => {
    // p50 0.7 ms, p99.9 70 ms: the axis the issue saw ticked 0.2 / 0.7 / 7 / 70.
    expect(logAxis([0.7, 3, 70])).toEqual({ domain: [0.5, 100], ticks: [0.5, 1, 2, 5, 10, 20, 50, 100] });
    // A value on a 1-2-5 value gets room past it.
    expect(logAxis([1, 5]).domain).toEqual([0.5, 10]);
    // Zeros and gaps are left out; nothing at all gives a decade.
    expect(logAxis([0, Number.NaN, 3, 4]).domain).toEqual([2, 5]);
    expect(logAxis([])).toEqual({ domain: [1, 10], ticks: [1, 2, 5, 10] });
    // One value: still two ticks.
    expect(logAxis([2]).ticks.length).toBeGreaterThanOrEqual(2);
  });

  it("reads the values of the lines it shows", () => {
    const rows = [{ t: 1, a: 2, b: "x" }, { t: 2, a: 0.3 }];
    expect([...valuesOf(rows, ["a", "b"])]).toEqual([2, 0.3]);
  });
});
