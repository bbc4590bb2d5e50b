// The run page's extrapolation against `keystorm show`'s: the fits and answers in
// scaling-agreement.json are what the server's module gives (its unit test holds the
// file to them), so the page answers as the CLI does, refusals word for word.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { LinearFit } from "../api/types";
import { extrapolate } from "./scaling";

interface Answer {
  keys: number;
  seconds?: number;
  low_s?: number;
  high_s?: number;
  refusal?: string;
}

const agreement = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), "scaling-agreement.json"), "utf8")) as {
  cases: Array<{ fit: LinearFit; answers: Answer[] }>;
};
const cases = agreement.cases;

describe("extrapolation", () => {
  it("gives the server's time and 95 % prediction interval, or its refusal, at every size", () => {
    expect(cases.length).toBeGreaterThan(0);
    for (const { fit, answers } of cases) {
      for (const a of answers) {
        const got = extrapolate(fit, a.keys);
        if (a.refusal != null) {
          expect(got.refusal, `${a.keys} keys`).toBe(a.refusal);
        } else {
          expect(got.refusal, `${a.keys} keys`).toBeUndefined();
          expect(got.prediction!.seconds).toBeCloseTo(a.seconds!, 9);
          expect(got.prediction!.low).toBeCloseTo(a.low_s!, 9);
          expect(got.prediction!.high).toBeCloseTo(a.high_s!, 9);
        }
      }
    }
  });

  it("refuses what the issue found: 67 billion keys from a parallel fit with R² 0.03", () => {
    const poor = cases.find((c) => c.fit.r2 < 0.9)!.fit;
    expect(extrapolate(poor, 67e9).refusal).toMatch(/^R² is 0\.0\d\d, under 0\.9/);
    // A good line answers near what it measured and not a hundredfold beyond.
    const good = cases.find((c) => c.fit.refusal == null)!.fit;
    expect(extrapolate(good, good.max_keys * 100).prediction).toBeDefined();
    expect(extrapolate(good, good.max_keys * 100 + 1).refusal).toMatch(/× the largest listing measured/);
  });

  it("widens the interval the further it goes", () => {
    const good = cases.find((c) => c.fit.refusal == null)!.fit;
    const width = (keys: number) => {
      const p = extrapolate(good, keys).prediction!;
      return p.high - p.low;
    };
    expect(width(good.mean_keys)).toBeLessThan(width(good.max_keys * 10));
    expect(width(good.max_keys * 10)).toBeLessThan(width(good.max_keys * 100));
  });
});
