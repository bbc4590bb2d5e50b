// The heatmap's colour scale labels: where they go, and that none is drawn over another.
import { describe, expect, it } from "vitest";
import { type ScaleLabel, fmtScaleRate, scaleLabels, scaleTicks } from "./heatmap-scale";

function overlap(a: ScaleLabel, b: ScaleLabel): boolean {
  return a.left < b.left + b.width && b.left < a.left + a.width;
}

describe("the colour scale", () => {
  it("labels rates where the cells take those colours", () => {
    expect(scaleTicks(5000).map((t) => t.count)).toEqual([1, 10, 100, 1000, 5000]);
    const t = scaleTicks(5000);
    expect(t[0].at).toBeCloseTo(Math.log(2) / Math.log(5001), 9);
    expect(t[t.length - 1].at).toBe(1);
    expect(scaleTicks(0)).toEqual([]);
    expect(fmtScaleRate(3192.4)).toBe("3,192");
    expect(fmtScaleRate(0.5)).toBe("0.5");
  });

  it("does not draw 1,000 over the fullest cell's 3,192 (which read 8,192)", () => {
    const labels = scaleLabels(3192, 180);
    expect(labels.map((l) => l.text)).toEqual(["1", "10", "100", "3,192"]);
  });

  it("never overlaps two labels, keeps the fullest cell's, and stays inside the scale", () => {
    for (const max of [0.4, 1, 3, 11, 99, 101, 1100, 3192, 9999, 12_345, 1e5, 3.3e6, 1e9]) {
      for (const width of [180, 120]) {
        const labels = scaleLabels(max, width);
        expect(labels[labels.length - 1].text, `${max}`).toBe(fmtScaleRate(max));
        for (const l of labels) {
          expect(l.left).toBeGreaterThanOrEqual(0);
          expect(l.left + l.width).toBeLessThanOrEqual(width + 1e-9);
        }
        for (let i = 0; i < labels.length; i++)
          for (let j = i + 1; j < labels.length; j++)
            expect(overlap(labels[i], labels[j]), `${max} at ${width} px: ${labels[i].text} and ${labels[j].text}`).toBe(false);
      }
    }
  });
});
