// The list-scaling experiment end to end: a small run of workloads/list-scaling.yaml's
// shape (a step of objects per round, then a serial and an adaptive listing) on the
// embedded target, then its detail page: one point per round per listing phase, a
// fitted line per phase in colours no operation has, and the extrapolation following
// what the reader types: refused (and why) beyond 100× the largest listing, a time with
// its 95 % prediction interval within.
import { expect, test } from "@playwright/test";
import { OP_COLOURS } from "../src/lib/palette";
import { openReport, screenshot, screenshotOf, startRun, url, waitFinished } from "./support";

const ROUNDS = 4;

const WORKLOAD = `name: e2e-list-scaling
target:
  endpoint: embedded
  embedded: { storage: size-only, latency: { list: 5ms } }
buckets: { names: [e2e-list-scaling] }
keyspace: { seed: 5, prefix: s/ }
objects: { size: 6B }
rounds:
  count: ${ROUNDS}
  phases:
    - { name: grow, op: put, workers: 16, operations: 3000 }
    - { name: serial, op: list, mode: serial, page_size: 250 }
    - { name: parallel, op: list, mode: adaptive, listers: 8, page_size: 250 }
`;

test("list time against objects, fitted and extrapolated", async ({ page, request }) => {
  test.setTimeout(180_000);
  const id = await startRun(request, WORKLOAD, { experiment: "list-scaling" });
  expect(await waitFinished(request, id)).toBe("completed");

  const report = (await (await request.get(url(`/api/runs/${id}/listings`))).json()) as {
    listings: Array<{ outcome: { keys: number; listers: number; concurrency: number } }>;
    lines: Array<{ phase: string; listers: number; points: Array<{ keys: number }>; fit: { r2: number } | null }>;
  };
  expect(report.listings.map((l) => l.outcome.keys)).toEqual([3000, 3000, 6000, 6000, 9000, 9000, 12000, 12000]);
  expect(report.listings.map((l) => l.outcome.listers)).toEqual([1, 8, 1, 8, 1, 8, 1, 8]);
  // The old name beside the new one, until the next release.
  expect(report.listings.map((l) => l.outcome.concurrency)).toEqual([1, 8, 1, 8, 1, 8, 1, 8]);
  expect(report.lines.map((l) => l.phase)).toEqual(["serial", "parallel"]);
  expect(report.lines.map((l) => l.listers)).toEqual([1, 8]);
  for (const line of report.lines) {
    expect(line.points).toHaveLength(ROUNDS);
    expect(line.fit).not.toBeNull();
  }

  await page.goto(url(`/runs/${id}`));
  const chart = page.getByTestId("list-scaling-chart");
  await expect(chart).toBeVisible();
  // One dot per round per listing phase, and a dashed fitted line per phase.
  await expect(chart.locator(".recharts-scatter-symbol")).toHaveCount(2 * ROUNDS);
  await expect(chart.locator("path.recharts-line-curve")).toHaveCount(2);
  await expect(page.getByTestId("listings-table").locator("tbody tr")).toHaveCount(2 * ROUNDS);
  // The listers column: a serial listing's one, the adaptive listing's eight.
  const rows = page.getByTestId("listings-table").locator("tbody tr");
  await expect(rows.nth(0).locator("td").nth(4)).toHaveText("1");
  await expect(rows.nth(1).locator("td").nth(4)).toHaveText("8");

  // Serial and parallel in colours of their own: neither is PUT's blue, DELETE's red
  // nor any other operation's.
  const fills = await chart.locator(".recharts-scatter-symbol path").evaluateAll((els) => els.map((e) => e.getAttribute("fill")));
  expect(new Set(fills).size).toBe(2);
  for (const fill of fills) expect(Object.values(OP_COLOURS)).not.toContain(fill);
  // Each fit's R² is shown. 67 billion keys is far beyond 100× the 12,000 listed: no
  // line goes there, and each says why.
  await expect(page.getByTestId("r2-serial")).toHaveText(/^-?\d\.\d{4}$/);
  const serial = page.getByTestId("extrapolated-serial");
  const parallel = page.getByTestId("extrapolated-parallel");
  for (const cell of [serial, parallel]) await expect(cell).toHaveText(/^not extrapolated: /);
  await expect(serial).toHaveText(/(67 billion keys is 5\.58 million× the largest listing measured \(12,000 keys\)|R² is )/);
  await screenshotOf(page.getByTestId("listings"), "list-scaling-refused");
  // Within reach, the serial line (its pages each wait 5 ms) gives a time and its 95 %
  // prediction interval.
  await page.getByTestId("extrapolate-input").fill("1 million");
  await expect(serial).toHaveText(/^(\d+ min )?[\d.]+ s \(.+ s to .+ s\)$/);
  await page.getByTestId("extrapolate-input").fill("plenty");
  await expect(serial).toHaveText("–");
  await page.getByTestId("extrapolate-input").fill("1 million");
  await page.getByTestId("listings").scrollIntoViewIfNeeded();
  await screenshot(page, "list-scaling");

  // The offline report carries the same listings, chart and fits.
  await openReport(page, request, id);
  await expect(page.getByTestId("listings-table").locator("tbody tr")).toHaveCount(2 * ROUNDS);
  await expect(page.getByTestId("list-scaling-chart").locator(".recharts-scatter-symbol")).toHaveCount(2 * ROUNDS);
  await expect(page.getByTestId("extrapolated-serial")).toHaveText(/^not extrapolated: /);
  // And the workload it ran, as the run page shows it.
  await expect(page.getByTestId("workload-text")).toContainText("name: e2e-list-scaling");
  // The heatmap is in the file too: every PUT of the four rounds.
  await expect(page.getByTestId("latency-heatmap")).toHaveAttribute("data-total", String(ROUNDS * 3000));
  await page.getByTestId("listings").scrollIntoViewIfNeeded();
  await screenshot(page, "report-list-scaling");
});

const SCAN_WORKLOAD = `name: e2e-metadata-scan
target: { endpoint: embedded }
buckets: { names: [e2e-metadata-scan] }
keyspace: { seed: 6, prefix: m/ }
objects: { size: 100B, metadata: { team: "team-{i%4}" } }
before:
  - { name: fill, op: put, workers: 8, until_objects: 400 }
after:
  - { name: metadata, op: head, keys: bucket, head_workers: 16, mode: adaptive }
cleanup: { objects: true }
`;

test("a metadata scan's HEADs and metadata on the run page", async ({ page, request }) => {
  test.setTimeout(120_000);
  const id = await startRun(request, SCAN_WORKLOAD, { experiment: "metadata-scan" });
  expect(await waitFinished(request, id)).toBe("completed");

  await page.goto(url(`/runs/${id}`));
  const scans = page.getByTestId("metadata-scans-table");
  await expect(scans).toBeVisible();
  const cells = scans.locator("tbody tr").first().locator("td");
  await expect(cells.nth(1)).toHaveText("metadata");
  await expect(cells.nth(3)).toHaveText("400");
  await expect(cells.nth(4)).toHaveText("0");
  // Its HEAD workers, as the workload named them.
  await expect(cells.nth(6)).toHaveText("16");
  const team = page.getByTestId("metadata-names").locator("tr", { hasText: "team" });
  // 400 objects, four values of 100 each.
  await expect(team.locator("td").nth(1)).toHaveText("400");
  await expect(team.locator("td").nth(2)).toHaveText("4");
  await expect(team.locator("td").nth(3)).toHaveText('"team-0" (100), "team-1" (100), "team-2" (100), "team-3" (100)');
  await page.getByTestId("scans-and-transfers").scrollIntoViewIfNeeded();
  await screenshot(page, "metadata-scan");

  // The fast client's latencies end at the kernel's stamp of each response.
  await expect(page.getByTestId("latency-clock")).toHaveText(/^ · latencies end as responses reached the socket \(kernel stamps\)/);
  // Cleanup ran after the scan: one DeleteObjects batch for the 400 objects.
  await expect(page.getByTestId("cleanup-fact")).toHaveText(/^deleted 400 of 400 objects in 1 request · \d+\.\d s$/);
  await page.goto(url(`/runs/${id}/live`));
  await expect(page.getByTestId("cleanup")).toHaveText(/^Cleanup done: deleted 400 of 400 objects in 1 request · /);

  await openReport(page, request, id);
  await expect(page.getByTestId("cleanup-fact")).toHaveText(/^deleted 400 of 400 objects in 1 request · /);
  await expect(page.getByTestId("metadata-scans-table").locator("tbody tr td").nth(3)).toHaveText("400");
  await expect(page.getByTestId("metadata-names")).toContainText('"team-0" (100)');
});
