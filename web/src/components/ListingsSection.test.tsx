// The list-scaling section's extrapolation: a good line's time with its 95 % prediction
// interval for the size typed in, and for a line that does not describe its listings
// (R² under 0.9) or a size beyond 100× the largest listing, the reason it gives none.
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { LinearFit, ListingRecord, ListingsReport } from "../api/types";
import { ListingsSection } from "./ListingsSection";

afterEach(cleanup);

/** The fits `keystorm show` is checked with: the first good, the second poor (R² 0.02), the third good up to 1.2 million keys. */
const fits = (
  JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), "../lib/scaling-agreement.json"), "utf8")) as {
    cases: Array<{ fit: LinearFit }>;
  }
).cases.map((c) => c.fit);

function listing(id: number, name: string, keys: number, seconds: number): ListingRecord {
  return {
    id,
    phase: { section: "round", round: id, index: 1, name },
    objects_at_start: keys,
    outcome: { bucket: "b", prefix: "", mode: { mode: "serial" }, keys, bytes: 0, requests: 1, errors: 0, ranges: 1, cuts: 0, seconds, complete: true, listers: 1, concurrency: 1 },
  } as unknown as ListingRecord;
}

const report = {
  listings: [listing(1, "serial", 3000, 0.31), listing(2, "parallel", 25_000, 0.9)],
  lines: [
    { phase: "serial", mode: "serial", listers: 1, concurrency: 1, points: [], fit: fits[2] },
    { phase: "parallel", mode: "adaptive", listers: 32, concurrency: 32, points: [], fit: fits[1] },
  ],
} as unknown as ListingsReport;

describe("list scaling extrapolation", () => {
  it("refuses 67 billion keys from both lines, each saying why", () => {
    render(<ListingsSection report={report} />);
    expect(screen.getByTestId("extrapolated-serial").textContent).toBe(
      "not extrapolated: 67 billion keys is 5.58 million× the largest listing measured (12,000 keys); the line is extrapolated to 100× at most",
    );
    expect(screen.getByTestId("extrapolated-parallel").textContent).toBe(
      "not extrapolated: R² is 0.020, under 0.9: the line does not describe the listings measured",
    );
    expect(screen.getByTestId("r2-parallel").textContent).toBe("0.0195");
  });

  it("gives a good line's time with its interval within reach", () => {
    render(<ListingsSection report={report} />);
    fireEvent.change(screen.getByTestId("extrapolate-input"), { target: { value: "1.2 million" } });
    // 120.01 s, 106.8 to 133.3 s (the server's answer in scaling-agreement.json).
    expect(screen.getByTestId("extrapolated-serial").textContent).toBe("2 min 0 s (1 min 47 s to 2 min 13 s)");
    expect(screen.getByTestId("extrapolated-parallel").textContent).toMatch(/^not extrapolated: R² is 0\.020/);
  });
});
