// A run that verifies what it reads from an embedded target that corrupts GET bodies on
// purpose: the run page says so in red beside the errors, names the first objects and
// where their bodies differ, and the offline report shows the same. A run that audits
// the listings of a target whose reshards lose and double index entries: each audit's
// counts on the page, red where wrong, with the keys found, as the API gives them.
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
  - { name: fill, op: put, workers: 8, until_objects: 300 }
rounds:
  count: 2
  phases:
    - { name: read, op: get, workers: 8, operations: 1000, verify: true }
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

const AUDITED = `name: e2e-audit
target:
  endpoint: embedded
  embedded:
    storage: size-only
    index: { dynamic: true, max_objs_per_shard: 30, check_interval: 10ms, reshard_time_per_object: 1us, retry_step: 1ms }
    faults: { lose_on_reshard: 0.02, list_twice: 0.2, seed: 5 }
buckets: { names: [e2e-audit], create: true }
keyspace: { seed: 4, prefix: a/ }
objects: { size: 1KiB }
before:
  - { name: fill, op: put, workers: 8, until_objects: 3000 }
rounds:
  count: 2
  phases:
    - { name: write, op: put, workers: 8, operations: 500 }
    - { name: audit, op: audit, mode: prefix, page_size: 50 }
`;

test("an audit shows what the listings lost and doubled, per round, on the page and in the report", async ({ page, request }) => {
  const id = await startRun(request, AUDITED, { faults: "index" });
  expect(await waitFinished(request, id)).toBe("completed");
  const report = (await (await request.get(url(`/api/runs/${id}/integrity`))).json()) as {
    audits: Array<{ bucket: string; counts: Record<string, number>; examples: unknown[] }>;
  };
  expect(report.audits).toHaveLength(2);
  const missing = report.audits.reduce((n, a) => n + a.counts.missing, 0);
  const doubled = report.audits.reduce((n, a) => n + a.counts.doubled, 0);
  expect(missing).toBeGreaterThan(0);
  expect(doubled).toBeGreaterThan(0);
  expect(report.audits.map((a) => a.counts.expected)).toEqual([3500, 4000]);

  await page.goto(url(`/runs/${id}`));
  const verdict = page.getByTestId("audit-verdict");
  await expect(verdict).toHaveAttribute("data-clean", "false");
  await expect(verdict).toContainText(`Listings not as written: ${missing} missing, ${doubled} doubled, 0 extra, 0 size mismatches (2 audits of 7,500 keys)`);
  // No GET was verified: no verification verdict.
  await expect(page.getByTestId("integrity-verdict")).toHaveCount(0);
  const rows = page.getByTestId("audit-row");
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText("round 1 · audit");
  await expect(rows.nth(1)).toContainText("round 2 · audit");
  const examples = report.audits.reduce((n, a) => n + a.examples.length, 0);
  // Many keys found: listed on a click, missing ones first.
  await page.locator(".audit-examples > summary").click();
  await expect(page.getByTestId("audit-example")).toHaveCount(examples);
  await expect(page.getByTestId("audit-example").first()).toContainText("missing");
  await expect(page.getByTestId("audit-example").last()).toContainText("listed 2 times");
  await page.getByTestId("audits").scrollIntoViewIfNeeded();
  await screenshot(page, "audit");

  await openReport(page, request, id);
  await expect(page.getByTestId("audit-verdict")).toContainText(`${missing} missing, ${doubled} doubled`);
  await expect(page.getByTestId("audit-row")).toHaveCount(2);
});
