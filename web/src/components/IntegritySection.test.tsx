import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { AuditCounts, AuditEvent, IntegrityReport } from "../api/types";
import { IntegritySection } from "./IntegritySection";

afterEach(cleanup);

const phase = { section: "round", round: 2, index: 0, name: "read" } as IntegrityReport["verified_phases"][number];

/** A run that verified nothing and audited its listings. */
function audited(audits: AuditEvent[]): IntegrityReport {
  return { verified_phases: [], verified_gets: 0, corrupt: 0, missing: 0, examples: [], audits };
}

describe("the integrity verdict", () => {
  it("says nothing for a run that verified nothing and lost nothing", () => {
    const { container } = render(<IntegritySection report={{ verified_phases: [], verified_gets: 0, corrupt: 0, missing: 0, examples: [], audits: [] }} />);
    expect(container.textContent).toBe("");
  });

  it("says what was checked when all was as written", () => {
    render(<IntegritySection report={{ verified_phases: [phase], verified_gets: 12000, corrupt: 0, missing: 0, examples: [], audits: [] }} />);
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
          audits: [],
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

  it("shows each listing audit, its wrong counts in red, and the keys it found", () => {
    const audit = (bucket: string, counts: Partial<AuditCounts>, examples: AuditEvent["examples"] = []) => ({
      phase,
      bucket,
      counts: { expected: 5000, listed: 5000, missing: 0, doubled: 0, extra: 0, size_mismatch: 0, ...counts },
      examples,
      list_seconds: 2,
      compare_seconds: 0.5,
    });
    render(
      <IntegritySection
        report={audited([
          audit("clean", {}),
          audit("lossy", { listed: 4999, missing: 3, doubled: 2 }, [
            { finding: "missing", key: "a/k1", detail: "written, 100 bytes, not listed" },
            { finding: "doubled", key: "a/k2", detail: "listed 2 times" },
          ]),
        ])}
      />,
    );
    // No verification verdict: nothing was verified.
    expect(screen.queryByTestId("integrity-verdict")).toBeNull();
    const verdict = screen.getByTestId("audit-verdict");
    expect(verdict.textContent).toBe("Listings not as written: 3 missing, 2 doubled, 0 extra, 0 size mismatches (2 audits of 10,000 keys).");
    expect(verdict.className).toContain("error");
    const rows = screen.getAllByTestId("audit-row");
    expect(rows.map((r) => r.getAttribute("data-clean"))).toEqual(["true", "false"]);
    expect(rows[0].textContent).toContain("2,500");
    const red = Array.from(rows[1].querySelectorAll("td.bad")).map((td) => td.textContent);
    expect(red).toEqual(["3", "2"]);
    const found = screen.getAllByTestId("audit-example");
    expect(found.map((r) => r.children[0].textContent)).toEqual(["missing", "doubled"]);
    expect(found[1].textContent).toContain("lossy");
    expect(found[1].textContent).toContain("listed 2 times");
  });

  it("says every listing was exact when all audits were", () => {
    const counts = { expected: 7, listed: 7, missing: 0, doubled: 0, extra: 0, size_mismatch: 0 };
    render(<IntegritySection report={audited([{ phase, bucket: "b", counts, examples: [], list_seconds: 0, compare_seconds: 0 }])} />);
    const verdict = screen.getByTestId("audit-verdict");
    expect(verdict.textContent).toBe("Listed exactly as written: 1 audit of 7 keys, each key once, none extra.");
    expect(verdict.className).toContain("good");
  });
});
