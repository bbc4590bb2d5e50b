// The metadata-scan and transfer tables of a run page: absent when the run had
// neither, and otherwise every scan's HEADs and metadata names (most common values
// first, a capped name said to have more) and every transfer's totals and rates.
import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { ListingsReport } from "../api/types";
import { ScansAndTransfers } from "./ScansAndTransfers";

afterEach(cleanup);

const after = { section: "after" as const, index: 0, name: "metadata" };

const report: ListingsReport = {
  listings: [],
  lines: [],
  metadata_scans: [
    {
      id: 7,
      phase: after,
      bucket: "photos",
      heads: 1200,
      head_errors: 2,
      missing: 1,
      head_workers: 64,
      head_concurrency: 64,
      seconds: 0.5,
      metadata: {
        objects: 1200,
        without_metadata: 200,
        names: {
          team: { objects: 1000, values: { red: 100, blue: 700, green: 200 }, other_values: 0 },
          serial: {
            objects: 1000,
            values: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`s${i}`, 1])),
            other_values: 900,
          },
        },
        other_names: 0,
      },
    },
  ],
  transfers: [
    {
      id: 9,
      phase: { section: "after", index: 1, name: "fetch" },
      outcome: {
        direction: "download",
        objects: 48,
        bytes: 48 * 8 * 1048576,
        skipped: 2,
        skipped_bytes: 2048,
        failed: 1,
        seconds: 2,
        mib_per_sec: 192,
        per_stream: { streams: 48, min: 10, p50: 29.5, p90: 40, max: 55 },
        failures: ["GET logs/x: 500 InternalError"],
        complete: true,
      },
    },
  ],
};

describe("metadata scans and transfers", () => {
  it("is absent when the run had neither", () => {
    const { container } = render(<ScansAndTransfers report={{ listings: [], lines: [] }} />);
    expect(container.innerHTML).toBe("");
  });

  it("shows each scan's HEADs and what the metadata held", () => {
    render(<ScansAndTransfers report={report} />);
    const row = within(screen.getByTestId("metadata-scans-table")).getAllByRole("row")[1];
    const cells = within(row).getAllByRole("cell").map((c) => c.textContent);
    expect(cells.slice(1, 9)).toEqual(["metadata", "photos", "1,200", "2", "1", "64", "0.5 s", "2,400"]);
    const header = within(screen.getByTestId("metadata-scans-table")).getAllByRole("columnheader");
    expect(header[6].textContent).toBe("HEAD workers");
    const names = screen.getByTestId("metadata-names");
    expect(names.textContent).toContain("1,200 objects, 200 without any");
    const team = within(names).getByText("team").closest("tr")!;
    // Most common value first.
    expect(team.textContent).toContain('"blue" (700), "green" (200), "red" (100)');
    const serial = within(names).getByText("serial").closest("tr")!;
    expect(serial.textContent).toContain("over 100");
  });

  it("shows each transfer's totals, rates and failures", () => {
    render(<ScansAndTransfers report={report} />);
    const row = within(screen.getByTestId("transfers-table")).getAllByRole("row")[1];
    const cells = within(row).getAllByRole("cell").map((c) => c.textContent);
    expect(cells[1]).toBe("fetch");
    expect(cells[2]).toBe("download");
    expect(cells[3]).toBe("48");
    expect(cells[6]).toBe("1");
    expect(screen.getByText(/GET logs\/x: 500 InternalError/)).toBeTruthy();
  });
});
