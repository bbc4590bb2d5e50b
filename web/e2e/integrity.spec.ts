// A run that verifies what it reads from an embedded target that corrupts GET bodies on
// purpose: the run page says so in red beside the errors, names the first objects and
// where their bodies differ, and the offline report shows the same.
import { expect, test } from "@playwright/test";
import { openReport, screenshot, startRun, url, waitFinished } from "./support";

const WORKLOAD = `name: e2e-verify
target:
  endpoint: embedded
  embedded:
    faults: { corrupt: 0.05, seed: 3, ops: [get] }
buckets: { names: [e2e-verify] }
keyspace: { seed: 4, prefix: v/ }
objects: { size: 4KiB }
before:
  - { name: fill, op: put, concurrency: 8, until_objects: 300 }
rounds:
  count: 2
  phases:
    - { name: read, op: get, concurrency: 8, operations: 1000, verify: true }
`;

test("a verified run names the objects the store corrupted, on the page and in the report", async ({ page, request }) => {
  const id = await startRun(request, WORKLOAD, { faults: "corrupt" });
  expect(await waitFinished(request, id)).toBe("completed");
  const detail = (await (await request.get(url(`/api/runs/${id}`))).json()) as {
    summary: { rows: Array<{ op: string; errors: number; error_classes: Record<string, number> }> };
  };
  const corrupt = detail.summary.rows.reduce((n, r) => n + (r.error_classes.corrupt ?? 0), 0);
  expect(corrupt).toBeGreaterThan(40);

  await page.goto(url(`/runs/${id}`));
  const verdict = page.getByTestId("integrity-verdict");
  await expect(verdict).toHaveAttribute("data-clean", "false");
  await expect(verdict).toContainText(`Not as written: ${corrupt} corrupt, 0 missing (verified 2,000 GETs in 2 phases)`);
  const examples = page.getByTestId("integrity-example");
  await expect(examples).toHaveCount(Math.min(corrupt, 100));
  await expect(examples.first()).toContainText("corrupt");
  await expect(examples.first()).toContainText(/byte \d+ is 0x[0-9a-f]{2}, written 0x[0-9a-f]{2}/);
  await page.getByTestId("integrity").scrollIntoViewIfNeeded();
  await screenshot(page, "integrity");

  await openReport(page, request, id);
  await expect(page.getByTestId("integrity-verdict")).toContainText(`${corrupt} corrupt`);
  await expect(page.getByTestId("integrity-example")).toHaveCount(Math.min(corrupt, 100));

  // The same reads from a target that keeps what it is given, compared with the first:
  // each run's verdict, the corrupting one's in red.
  const kept = await startRun(request, WORKLOAD.replace("  embedded:\n    faults: { corrupt: 0.05, seed: 3, ops: [get] }\n", ""), { faults: "none" });
  expect(await waitFinished(request, kept)).toBe("completed");
  await page.goto(url(`/compare?runs=${id},${kept}`));
  const rows = page.getByTestId("compare-integrity-row");
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText(`Not as written: ${corrupt} corrupt`);
  await expect(rows.nth(0).locator("td.bad")).toHaveCount(1);
  await expect(rows.nth(1)).toContainText("Verified 2,000 GETs in 2 phases: every body as written");
});
