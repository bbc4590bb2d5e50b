// The bucket-index charts end to end: two runs of a small workload on the embedded
// target's RGW imitation, one on a dynamically resharded bucket and one on a bucket
// pre-sharded to 211 shards, started through the API; then the run-detail page of each
// (shard step line, reshard marks and windows) and the compare page with both.
import { type Page, expect, test } from "@playwright/test";
import { openComparisonReport, screenshot, screenshotOf, startRun, url, waitFinished } from "./support";

const PRESHARDED = 211;

/**
 * 2,000 objects after the fill, 14,000 at the end: with 100 objects a shard a dynamic
 * bucket reshards about once a round; 211 shards hold 21,100 objects, so the
 * pre-sharded bucket never reshards. Whatever the timing, the fill leaves at most 41
 * shards (4,100 objects), so round 1's writes (to 6,000 objects) always make the bucket
 * reshard inside a round, and the poll that closes each phase places a reshard it sees
 * in that phase.
 */
function workload(index: string): string {
  return `name: e2e-reshard
target:
  endpoint: embedded
  embedded:
    storage: size-only
    index: { max_objs_per_shard: 100, check_interval: 200ms, reshard_time_per_object: 100us, retry_step: 1s }
buckets: { names: [e2e-reshard], index: ${index} }
stalls: { min_intervals: 2 }
keyspace: { seed: 3, prefix: r/ }
objects: { size: 10B }
before:
  - { name: fill, op: put, workers: 8, until_objects: 2000 }
rounds:
  count: 3
  phases:
    - { name: write, op: put, workers: 8, operations: 4000 }
    - { name: read, op: get, workers: 8, operations: 4000 }
`;
}

async function shardValues(page: Page, chartTestId: string, series?: string): Promise<number[]> {
  const selector = series ? `[data-testid="shard-point"][data-series*="${series}"]` : '[data-testid="shard-point"]';
  const points = page.getByTestId(chartTestId).first().locator(selector);
  return (await points.evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-shards")))));
}

test.describe.serial("bucket index: dynamic vs pre-sharded", () => {
  let dynamicId = "";
  let preshardedId = "";

  test.beforeAll(async ({ request }) => {
    test.setTimeout(360_000);
    dynamicId = await startRun(request, workload("dynamic"), { index: "dynamic" });
    expect(await waitFinished(request, dynamicId)).toBe("completed");
    preshardedId = await startRun(request, workload(`{ shards: ${PRESHARDED} }`), { index: "presharded" });
    expect(await waitFinished(request, preshardedId)).toBe("completed");
  });

  test("the dynamic run resharded, and its detail page draws the shard steps and marks them", async ({ page, request }) => {
    const report = (await (await request.get(url(`/api/runs/${dynamicId}/index`))).json()) as {
      reshards: Array<{ end: { phase: { section: string; round: number; name: string } } | null }>;
    };
    expect(report.reshards.length).toBeGreaterThanOrEqual(2);
    const seenInRound = report.reshards.find((r) => r.end?.phase.section === "round")?.end?.phase;
    expect(seenInRound).toBeTruthy();

    await page.goto(url(`/runs/${dynamicId}`));
    const chart = page.getByTestId("rounds-chart");
    await expect(chart.locator('[data-testid="shard-point"]')).toHaveCount(3);
    const shards = await shardValues(page, "rounds-chart");
    expect(shards[2]).toBeGreaterThan(shards[0]);
    expect(shards).toEqual([...shards].sort((a, b) => a - b));
    const reshardMarks = chart.locator('[data-testid="round-mark"][data-kind*="reshard"]');
    expect(await reshardMarks.count()).toBeGreaterThanOrEqual(1);
    await expect(reshardMarks.first().locator("title")).toContainText(/reshard \d+→\d+ shards/);

    const section = page.getByTestId("bucket-index");
    await expect(section.getByTestId("reshard-row")).toHaveCount(report.reshards.length);
    await expect(section.getByTestId("index-polling")).toContainText("Polled the index");

    // The per-second chart of the phase in which a reshard was seen.
    const op = seenInRound!.name === "write" ? "put" : "get";
    await page.getByTestId("phase-picker").selectOption(`round|${seenInRound!.round}|${seenInRound!.name}|${op}`);
    const perSecond = page.getByTestId("interval-chart");
    await expect(perSecond.locator('[data-testid="reshard-window"]').first()).toBeVisible();
    await expect(perSecond.locator('[data-testid="shard-step"]').first()).toBeAttached();
    // A time label sits at the time it says, on the line chart as on the heatmap: the
    // phase began mid-second, and "2 s" is where two seconds are.
    const domain = ((await perSecond.getAttribute("data-x-domain")) ?? "").split(",").map(Number);
    const axis = await perSecond.locator(".recharts-cartesian-grid").boundingBox();
    const ticks = perSecond.locator(".recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value");
    expect(await ticks.count()).toBeGreaterThanOrEqual(1);
    for (const tick of await ticks.all()) {
      const seconds = Number(((await tick.textContent()) ?? "").replace(" s", ""));
      const box = (await tick.boundingBox())!;
      const expected = axis!.x + ((seconds - domain[0]) / (domain[1] - domain[0])) * axis!.width;
      expect(Math.abs(box.x + box.width / 2 - expected)).toBeLessThan(3);
    }
    // That phase's heatmap: its operations, the reshard shaded on it too, on the same
    // time axis as the line chart.
    const phaseHeatmap = page.getByTestId("phase-heatmap");
    await expect(phaseHeatmap).toHaveAttribute("data-total", "4000");
    const heatSpan = Number(await phaseHeatmap.getAttribute("data-span"));
    expect(Math.abs(heatSpan - (domain[1] - domain[0]))).toBeLessThan(0.01);
    expect(await phaseHeatmap.locator('[data-testid="heatmap-window"]').count()).toBeGreaterThanOrEqual(1);
    await page.getByTestId("rounds-chart").scrollIntoViewIfNeeded();
    await screenshot(page, "run-detail-rgw");

    // The PUT heatmap: every PUT of the run in a cell, the reshards shaded on its time
    // axis, the phases marked.
    const heatmap = page.getByTestId("latency-heatmap");
    await expect(heatmap).toBeVisible();
    const puts = ((await (await request.get(url(`/api/runs/${dynamicId}`))).json()) as {
      summary: { rows: Array<{ op: string; ops: number }> };
    }).summary.rows
      .filter((r) => r.op === "put")
      .reduce((n, r) => n + r.ops, 0);
    await expect(heatmap).toHaveAttribute("data-total", String(puts));
    expect(await heatmap.locator('[data-testid="heatmap-window"]').count()).toBeGreaterThanOrEqual(1);
    expect(await heatmap.locator('[data-testid="heatmap-phase"]').count()).toBeGreaterThanOrEqual(4);
    await heatmap.scrollIntoViewIfNeeded();
    await screenshot(page, "heatmap-rgw");
    await screenshotOf(page.getByTestId("heatmap-section"), "heatmap");
  });

  test("the pre-sharded run keeps a flat shard line and has no reshard marks", async ({ page }) => {
    await page.goto(url(`/runs/${preshardedId}`));
    const chart = page.getByTestId("rounds-chart");
    await expect(chart.locator('[data-testid="shard-point"]')).toHaveCount(3);
    expect(await shardValues(page, "rounds-chart")).toEqual([PRESHARDED, PRESHARDED, PRESHARDED]);
    await expect(chart.locator('[data-testid="round-mark"][data-kind*="reshard"]')).toHaveCount(0);
    await expect(page.getByTestId("no-reshards")).toBeVisible();
    await screenshot(page, "run-detail-rgw-presharded");
  });

  test("compare draws each run's shard line and marks the dynamic run's reshards", async ({ page }) => {
    await page.goto(url(`/compare?runs=${dynamicId},${preshardedId}`));
    await expect(page.getByTestId("compare-run")).toHaveCount(2);
    const chart = page.getByTestId("rounds-chart").first();
    await expect(chart.locator('[data-testid="shard-point"]')).toHaveCount(6);
    const dynamic = await shardValues(page, "rounds-chart", "index=dynamic");
    const presharded = await shardValues(page, "rounds-chart", "index=presharded");
    expect(dynamic).toHaveLength(3);
    expect(dynamic[2]).toBeGreaterThan(dynamic[0]);
    expect(presharded).toEqual([PRESHARDED, PRESHARDED, PRESHARDED]);
    await expect(chart.locator('[data-testid="round-mark"][data-kind*="reshard"]').first()).toBeVisible();
    await expect(chart.locator('[data-testid="round-mark"]').filter({ hasText: "#2 reshard" })).toHaveCount(0);
    // The study in words: the dynamic run's reshards, none for the pre-sharded one.
    const paragraph = page.getByTestId("judged-paragraph");
    await expect(paragraph).toContainText(new RegExp(`${dynamicId} met \\d+ reshards? \\(`));
    await expect(paragraph).toContainText(`${preshardedId} met no reshard`);
    await screenshot(page, "compare-rgw");
  });

  test("the comparison's offline report draws what the compare page does", async ({ page }) => {
    await openComparisonReport(page, [dynamicId, preshardedId], ["--noise-floor", "5%"]);
    await expect(page.getByTestId("compare-run")).toHaveCount(2);
    // Judged once, with the floor asked: shown, not a control.
    await expect(page.getByTestId("noise-floor-fixed")).toHaveText("Noise floor ±5 %");
    await expect(page.getByTestId("noise-floor")).toHaveCount(0);
    const paragraph = page.getByTestId("judged-paragraph");
    await expect(paragraph).toContainText(new RegExp(`${dynamicId} met \\d+ reshards? \\(`));
    await expect(paragraph).toContainText(`${preshardedId} met no reshard`);
    const chart = page.getByTestId("rounds-chart").first();
    await expect(chart.locator('[data-testid="shard-point"]')).toHaveCount(6);
    expect(await shardValues(page, "rounds-chart", "index=presharded")).toEqual([PRESHARDED, PRESHARDED, PRESHARDED]);
    // The distributions are in the file: the overlay draws one line per run.
    const distribution = page.getByTestId("distribution-chart");
    await distribution.scrollIntoViewIfNeeded();
    await expect(distribution.locator("path.recharts-curve")).toHaveCount(2);
    await screenshot(page, "compare-rgw-report");
  });
});

/**
 * A reshard that holds writes: 200 PUTs a second cross 11 shards × 100 objects after
 * about 5.5 s, once the phase's median is known; the reshard to 23 shards blocks every
 * PUT until the next 2 s retry step, so the stall has writes it held.
 */
const HELD = `name: e2e-held
target:
  endpoint: embedded
  embedded:
    storage: size-only
    index: { max_objs_per_shard: 100, check_interval: 100ms, reshard_time_per_object: 200us, retry_step: 2s }
  rgw: { poll: 300ms }
buckets: { names: [e2e-held], index: dynamic }
objects: { size: 10B }
before:
  - { name: fill, op: put, concurrency: 16, rate: 200, duration: 9s }
`;

test("a stall is told with the writes it held and the longest wait, in the CLI's words", async ({ page, request }) => {
  test.setTimeout(180_000);
  const id = await startRun(request, HELD, { e2e: "held" });
  expect(await waitFinished(request, id)).toBe("completed");
  const report = (await (await request.get(url(`/api/runs/${id}/index`))).json()) as {
    stalls: Array<{ held_writes?: number; longest_write_us?: number }>;
  };
  const held = report.stalls.filter((s) => (s.held_writes ?? 0) > 0);
  expect(held.length, JSON.stringify(report.stalls)).toBeGreaterThanOrEqual(1);
  const words = /^\d+ writes? held, the longest [\d.]+ (µs|ms|s)$/;

  await page.goto(url(`/runs/${id}`));
  const cells = page.getByTestId("stall-row").getByTestId("stall-held");
  await expect(cells.filter({ hasText: words })).toHaveCount(held.length);
  const told = (await cells.filter({ hasText: words }).first().textContent())!;
  expect(told).toContain(`${held[0].held_writes} write`);
  // The same words as the server's timeline (the CLI's `show`).
  await expect(page.getByTestId("timeline-stall").filter({ hasText: told })).toHaveCount(1);
  // The shaded stall on the phase's per-second chart says it on hover.
  await expect(page.getByTestId("interval-chart").locator('[data-testid="stall-window"] title').filter({ hasText: told })).toHaveCount(1);
});
