// Reading a bucket from its listing, end to end on the embedded target: a run fills a
// bucket, then reads every key it lists three times. The live page says which bucket
// and key file the running phase reads and in which epoch; the run page and the offline
// report list the keys read and mark each new epoch on the per-second charts; the runs
// list filters on the bucket, so a run on another bucket drops out.
import { expect, test } from "@playwright/test";
import { openReport, screenshot, startRun, url, waitFinished } from "./support";

// GETs of 5 ms: an epoch of 2,000 keys at 8 at a time takes over a second, so every
// interval ends at most one epoch after the one before.
const WORKLOAD = `name: keys-demo
target: { endpoint: embedded, embedded: { latency: { get: 5ms } } }
buckets: { name: keys-demo }
objects: { size: 1KiB }
before:
  - { name: fill, op: put, workers: 8, until_objects: 2000, allow_writes: true }
  - { name: read, op: get, workers: 8, epochs: 3, keys: { from: listing } }
`;

const OTHER = `name: keys-other
buckets: { name: keys-other }
objects: { size: 1KiB }
before:
  - { name: fill, op: put, workers: 8, until_objects: 200 }
`;

test("a run reading its bucket's listing in epochs: keys, epochs and the bucket filter", async ({ page, request }) => {
  test.setTimeout(180_000);
  const id = await startRun(request, WORKLOAD, { keys: "listing" });

  // Live: the keys line of the phase reading them, with the epoch it is in.
  await page.goto(url(`/runs/${id}/live`));
  const live = page.getByTestId("live-keys");
  await expect(live).toContainText("2,000 keys of bucket keys-demo, listed in");
  await expect(live).toContainText("into keys-1.keys");
  await expect(live).toContainText(/epoch [123] of 3/);
  expect(await waitFinished(request, id)).toBe("completed");
  await expect(live).toContainText("epoch 3 of 3");
  await expect(page.getByTestId("live-chart-ops").locator(".epoch-mark")).toHaveCount(2);
  await screenshot(page, "keys-live");

  const intervals = (await (await request.get(url(`/api/runs/${id}/intervals?section=before&phase=read`))).json()) as Array<{
    epoch?: number;
  }>;
  const epochs = intervals.map((r) => r.epoch);
  expect(epochs[0]).toBe(1);
  expect(epochs[epochs.length - 1]).toBe(3);
  expect(new Set(epochs).size).toBe(3);

  // The run page: the keys read, and the read phase's charts marked at each new epoch.
  await page.goto(url(`/runs/${id}`));
  const rows = page.getByTestId("keys-row");
  await expect(rows).toHaveCount(1);
  const cells = rows.first().locator("td");
  await expect(cells.nth(1)).toHaveText("read");
  await expect(cells.nth(2)).toHaveText("listing");
  await expect(cells.nth(3)).toHaveText("keys-demo");
  await expect(cells.nth(4)).toHaveText("keys-1.keys");
  await expect(cells.nth(5)).toHaveText("2,000");
  await expect(cells.nth(6)).toHaveText("3");
  await expect(cells.nth(7)).toHaveText(/^\d+\.\d+ s$/);
  await expect(cells.nth(8)).toHaveText("1.95 MiB");
  await expect(page.getByTestId("phase-picker")).toHaveValue("before||read|get");
  for (const chart of ["interval-chart", "interval-latency-chart"]) {
    await expect(page.getByTestId(chart).locator(".epoch-mark")).toHaveCount(2);
    await expect(page.getByTestId(chart)).toContainText("epoch 2");
    await expect(page.getByTestId(chart)).toContainText("epoch 3");
  }
  // A point's tooltip names its epoch (the chart in view first: the mouse moves in the
  // viewport, and the tables above it can push it below the fold).
  await page.getByTestId("interval-chart").scrollIntoViewIfNeeded();
  const plot = (await page.getByTestId("interval-chart").locator(".recharts-cartesian-grid").boundingBox())!;
  await page.mouse.move(plot.x + plot.width - 4, plot.y + plot.height / 2);
  await expect(page.getByTestId("interval-chart").locator(".recharts-tooltip-wrapper")).toContainText("epoch 3");
  await page.mouse.move(0, 0);
  await page.getByTestId("keys-section").scrollIntoViewIfNeeded();
  await screenshot(page, "keys");

  // The offline report draws the same.
  await openReport(page, request, id);
  await expect(page.getByTestId("keys-row")).toHaveCount(1);
  await expect(page.getByTestId("keys-row")).toContainText("keys-1.keys");
  await expect(page.getByTestId("interval-chart").locator(".epoch-mark")).toHaveCount(2);

  // The runs list: each run's buckets, and a filter on them kept in the address.
  const other = await startRun(request, OTHER, { keys: "other" });
  expect(await waitFinished(request, other)).toBe("completed");
  await page.goto(url("/runs"));
  await expect(page.getByTestId(`run-row-${id}`).getByTestId("run-buckets")).toHaveText("keys-demo");
  await expect(page.getByTestId(`run-row-${other}`).getByTestId("run-buckets")).toHaveText("keys-other");
  await page.getByTestId("runs-bucket-filter").selectOption("keys-demo");
  await expect(page).toHaveURL(/\/runs\?bucket=keys-demo$/);
  await expect(page.getByTestId(`run-row-${id}`)).toBeVisible();
  await expect(page.getByTestId(`run-row-${other}`)).toHaveCount(0);
  await screenshot(page, "keys-runs");
  // The API filters alike.
  const byApi = (await (await request.get(url("/api/runs?bucket=keys-demo"))).json()) as Array<{ run_id: string }>;
  expect(byApi.map((r) => r.run_id)).toContain(id);
  expect(byApi.map((r) => r.run_id)).not.toContain(other);
  // Opened from the address, the list is filtered already.
  await page.goto(url("/runs?bucket=keys-other"));
  await expect(page.getByTestId("runs-bucket-filter")).toHaveValue("keys-other");
  await expect(page.getByTestId(`run-row-${other}`)).toBeVisible();
  await expect(page.getByTestId(`run-row-${id}`)).toHaveCount(0);
});
