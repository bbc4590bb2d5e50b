import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { IntegrityReport } from "../api/types";
import { IntegritySection } from "./IntegritySection";

afterEach(cleanup);

const phase = { section: "round", round: 2, index: 0, name: "read" } as IntegrityReport["verified_phases"][number];

describe("the integrity verdict", () => {
  it("says nothing for a run that verified nothing and lost nothing", () => {
    const { container } = render(<IntegritySection report={{ verified_phases: [], verified_gets: 0, corrupt: 0, missing: 0, examples: [] }} />);
    expect(container.textContent).toBe("");
  });

  it("says what was checked when all was as written", () => {
    render(<IntegritySection report={{ verified_phases: [phase], verified_gets: 12000, corrupt: 0, missing: 0, examples: [] }} />);
    const verdict = screen.getByTestId("integrity-verdict");
    expect(verdict.textContent).toBe("Verified 12,000 GETs in 1 phase: every body as written, no live key missing.");
    expect(verdict.className).toContain("good");
    expect(screen.queryByTestId("integrity-examples")).toBeNull();
  });

  it("is red with the objects found when the store lost or changed some", () => {
    const example = { phase, class: "corrupt", bucket: "b", key: "v/k1", detail: "byte 700 is 0x17, written 0x07" };
    render(
      <IntegritySection
        report={{
          verified_phases: [phase],
          verified_gets: 1000,
          corrupt: 3,
          missing: 1,
          examples: [example, { ...example, class: "missing", key: "v/k2", detail: "get answered 404 for a key written and not deleted" }],
        }}
      />,
    );
    const verdict = screen.getByTestId("integrity-verdict");
    expect(verdict.textContent).toBe("Not as written: 3 corrupt, 1 missing (verified 1,000 GETs in 1 phase).");
    expect(verdict.className).toContain("error");
    const rows = screen.getAllByTestId("integrity-example");
    expect(rows).toHaveLength(2);
    expect(rows[0].textContent).toContain("round 2 · read");
    expect(rows[0].textContent).toContain("byte 700 is 0x17, written 0x07");
    expect(rows[1].textContent).toContain("missing");
  });
});
