// The keys table of a run page: absent when no phase read a listing or a key file, and
// otherwise one row per such phase with its bucket (and prefix), key file, keys (a
// shard's part said as "N of M"), epochs, list time and bytes listed.
import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { ListingsReport } from "../api/types";
import { KeysSection } from "./KeysSection";

afterEach(cleanup);

const report: ListingsReport = {
  listings: [],
  lines: [],
  keys: [
    {
      phase: { section: "before", index: 1, name: "read" },
      source: "listing",
      bucket: "keys-demo",
      prefix: "2026/",
      file: "keys-1.keys",
      keys: 2000,
      part_keys: 2000,
      object_bytes: 2048000,
      list_seconds: 0.52,
      epochs: 3,
    },
    {
      phase: { section: "round", round: 2, index: 3, name: "scan" },
      source: "file",
      bucket: "prod-logs",
      file: "/data/prod-logs.keys",
      keys: 2000,
      part_keys: 500,
    },
  ],
};

describe("keys read", () => {
  it("is absent when no phase read a listing or a key file", () => {
    expect(render(<KeysSection report={{ listings: [], lines: [] }} />).container.innerHTML).toBe("");
    expect(render(<KeysSection report={null} />).container.innerHTML).toBe("");
  });

  it("shows each phase's bucket, key file, keys, epochs and listing", () => {
    render(<KeysSection report={report} />);
    const rows = screen.getAllByTestId("keys-row");
    expect(rows).toHaveLength(2);
    const cells = (i: number) => within(rows[i]).getAllByRole("cell").map((c) => c.textContent);
    expect(cells(0)).toEqual(["before", "read", "listing", "keys-demo prefix 2026/", "keys-1.keys", "2,000", "3", "0.52 s", "1.95 MiB"]);
    expect(cells(1)).toEqual(["round 2", "scan", "key file", "prod-logs", "/data/prod-logs.keys", "500 of 2,000", "–", "–", "–"]);
    expect(within(rows[0]).getByText("3").getAttribute("title")).toBe("every key read 3 times: 6,000 reads");
    expect(within(rows[1]).getByText("500 of 2,000").getAttribute("title")).toContain("shard's part");
  });
});
