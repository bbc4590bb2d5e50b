// Cleanup's progress on the live page (and its outcome in a run's facts): deleted of total, failures, how many requests
// it took (DeleteObjects batches, or single deletes on a target without them).
import type { CleanupEvent } from "../api/types";
import { fmtCount, fmtDuration } from "../lib/format";

/** `deleted 2,000 of 5,000 objects in 2 requests · 1.3 s`, with what else there is to say. */
export function cleanupText(c: CleanupEvent): string {
  const parts = [
    `deleted ${fmtCount(c.deleted)} of ${fmtCount(c.objects)} objects in ${fmtCount(c.requests)} request${c.requests === 1 ? "" : "s"}`,
  ];
  if (c.single_deletes) parts.push("one by one (the target has no multi-object delete)");
  if (c.failed > 0) parts.push(`${fmtCount(c.failed)} could not be deleted`);
  if (c.done && c.buckets_deleted > 0) parts.push(`${fmtCount(c.buckets_deleted)} bucket${c.buckets_deleted === 1 ? "" : "s"} deleted`);
  parts.push(fmtDuration(c.seconds));
  return parts.join(" · ");
}

export function CleanupLine({ cleanup: c }: { cleanup: CleanupEvent }) {
  return (
    <div className={c.failed > 0 ? "state warn" : "state"} data-testid="cleanup">
      <strong>{c.done ? "Cleanup done" : "Cleaning up"}:</strong> {cleanupText(c)}
    </div>
  );
}
