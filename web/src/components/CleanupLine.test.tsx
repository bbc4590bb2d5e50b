// Cleanup on the live page: the latest event wins, progress reads as deleted of
// total, a target without multi-object delete and failures are said, and the final
// event says done with the buckets it deleted.
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { CleanupEvent } from "../api/types";
import { applyEvent, initialLive } from "../lib/live";
import { CleanupLine } from "./CleanupLine";

afterEach(cleanup);

const going: CleanupEvent = {
  objects: 5000,
  deleted: 2000,
  failed: 0,
  requests: 2,
  single_deletes: false,
  buckets_deleted: 0,
  seconds: 1.25,
  done: false,
};

describe("cleanup on the live page", () => {
  it("folds the latest cleanup event into the live state", () => {
    let s = applyEvent(initialLive(), { id: 0, name: "cleanup", data: { ...going, deleted: 0 } });
    s = applyEvent(s, { id: 1, name: "cleanup", data: going });
    expect(s.cleanup?.deleted).toBe(2000);
    // A replayed older event changes nothing.
    s = applyEvent(s, { id: 0, name: "cleanup", data: { ...going, deleted: 0 } });
    expect(s.cleanup?.deleted).toBe(2000);
  });

  it("shows progress while deleting", () => {
    render(<CleanupLine cleanup={going} />);
    const line = screen.getByTestId("cleanup");
    expect(line.textContent).toBe("Cleaning up: deleted 2,000 of 5,000 objects in 2 requests · 1.3 s");
    expect(line.classList.contains("warn")).toBe(false);
  });

  it("says when it is done, what failed, and that deletes went one by one", () => {
    render(
      <CleanupLine cleanup={{ ...going, deleted: 4990, failed: 10, requests: 5001, single_deletes: true, buckets_deleted: 1, done: true }} />,
    );
    const line = screen.getByTestId("cleanup");
    expect(line.textContent).toBe(
      "Cleanup done: deleted 4,990 of 5,000 objects in 5,001 requests · one by one (the target has no multi-object delete) · 10 could not be deleted · 1 bucket deleted · 1.3 s",
    );
    expect(line.classList.contains("warn")).toBe(true);
  });
});
