// An open-loop phase asking far more than one request in flight can send against a slow
// target: the live page draws how late requests left beside their latency and the rate
// asked beside the rate done, and says what happened in one sentence with units; the
// run page's phase charts draw the same lines.
import { expect, test } from "@playwright/test";
import { screenshot, startRun, url, waitFinished } from "./support";
import { ASKED_COLOUR, LAG_DASH } from "../src/lib/palette";

// One request in flight of 20 ms: at most 50 PUTs a second, for 400 asked.
const WORKLOAD = `name: e2e-behind
target:
  endpoint: embedded
  embedded:
    latency: { put: 20ms }
buckets: { names: [e2e-behind] }
objects: { size: 1KiB }
rounds:
  count: 1
  phases:
    - { name: write, op: put, workers: 1, rate: 400, duration: 6s }
`;

test("the live page of a run that falls behind draws its lag and its asked rate, and says so once", async ({ page, request }) => {
  const id = await startRun(request, WORKLOAD, { e2e: "behind" });
  await page.goto(url(`/runs/${id}/live`));
  const latency = page.getByTestId("live-chart-latency");
  const ops = page.getByTestId("live-chart-ops");
  // Drawn lines (a path with points), not only legend entries.
  await expect(latency.locator(`path.recharts-line-curve[stroke-dasharray="${LAG_DASH.p99}"][d*="L"]`)).toHaveCount(1);
  await expect(latency.locator(`path.recharts-line-curve[stroke-dasharray="${LAG_DASH.p50}"][d*="L"]`)).toHaveCount(1);
  await expect(latency.getByTestId("legend-item").filter({ hasText: "put sent late p99" })).toHaveCount(1);
  await expect(ops.locator(`path.recharts-line-curve[stroke="${ASKED_COLOUR}"][d*="L"]`)).toHaveCount(1);
  await expect(ops.getByTestId("legend-item").filter({ hasText: /^asked$/ })).toHaveCount(1);

  expect(await waitFinished(request, id)).toBe("completed");
  const warnings = page.getByTestId("live-warning").filter({ hasText: "round 1 write" });
  await expect(warnings).toHaveCount(1);
  await expect(warnings).toContainText(/^round 1 write: asked 400\/s, sent \d+\/s \(\d+ %\), [\d,]+ never sent; requests left [\d.]+ s late at p50/);
  await expect(warnings).toContainText("the client could not keep up");
  await expect(warnings).not.toContainText("µs");
  // Once it ended the page shows the run's verdict, not only its status, and links to it.
  await expect(page.locator(".title-row").getByTestId("verdict-overall")).toHaveText("fell behind");
  await expect(page.getByTestId("open-detail")).toHaveAttribute("href", `/runs/${id}`);
  await screenshot(page, "live-behind");

  // The run page: the verdict says the same sentence, and the phase's charts draw both lines.
  await page.goto(url(`/runs/${id}`));
  await expect(page.getByTestId("verdict-findings")).toContainText("round 1 write: asked 400/s");
  await expect(page.getByTestId("interval-chart").locator(`path.recharts-line-curve[stroke="${ASKED_COLOUR}"][d*="L"]`)).toHaveCount(1);
  await expect(page.getByTestId("interval-latency-chart").locator(`path.recharts-line-curve[stroke-dasharray="${LAG_DASH.p99}"][d*="L"]`)).toHaveCount(1);
});
