// The UI end to end in Chromium against the real binary: start the demo from the
// editor and watch it live, stop it; run a rounds workload to the end and find one
// point per round; compare two runs, then three; see the editor mark a broken line.
import { type Locator, type Page, expect, test } from "@playwright/test";
import { openReport, screenshot, url } from "./support";

async function startFromEditor(page: Page, workload: string, labels = ""): Promise<string> {
  await page.goto(url(`/workloads/${workload}`));
  await expect(page.getByTestId("validation-ok")).toBeVisible();
  if (labels) await page.getByTestId("run-labels").fill(labels);
  await page.getByTestId("start-run").click();
  await page.waitForURL(/\/runs\/[^/]+\/live$/);
  return decodeURIComponent(page.url().split("/runs/")[1].replace(/\/live$/, ""));
}

/** Whether `v` is 1, 2 or 5 times a power of ten. */
function is125(v: number): boolean {
  const mantissa = v / 10 ** Math.floor(Math.log10(v) + 1e-9);
  return [1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-6);
}

/** The values of a chart's left-axis ticks, as drawn. */
async function tickValues(chart: Locator): Promise<number[]> {
  const texts = await chart.locator(".recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value").allTextContents();
  return texts.map((t) => Number(t.replace(/,/g, "")));
}

/** The heatmap's colour scale labels as drawn: no two boxes overlap. */
async function expectScaleLabelsApart(heatmap: Locator): Promise<void> {
  const boxes = await heatmap.getByTestId("heatmap-scale-label").evaluateAll((els) =>
    els.map((e) => {
      // The text's own extent, whatever box it sits in.
      const range = document.createRange();
      range.selectNodeContents(e);
      const r = range.getBoundingClientRect();
      return { text: e.textContent, left: r.left, right: r.right };
    }),
  );
  expect(boxes.length).toBeGreaterThanOrEqual(2);
  for (let i = 1; i < boxes.length; i++) expect(boxes[i].left, `${boxes[i - 1].text} against ${boxes[i].text}`).toBeGreaterThan(boxes[i - 1].right);
}

async function chartPoints(page: Page, testId: string): Promise<number> {
  return Number(await page.getByTestId(testId).getAttribute("data-points"));
}

test.describe.serial("keystorm UI", () => {
  test("the demo starts from the editor, charts move live, and stops", async ({ page }) => {
    const id = await startFromEditor(page, "demo");
    await expect(page.getByTestId("live-phase")).not.toContainText("starting");
    await expect.poll(() => chartPoints(page, "live-chart-ops")).toBeGreaterThanOrEqual(2);
    const before = await chartPoints(page, "live-chart-ops");
    await expect.poll(() => chartPoints(page, "live-chart-ops")).toBeGreaterThan(before);
    await expect(page.getByTestId("live-badge")).toContainText(id);
    // The live heatmap grows with the run.
    await expect(page.getByTestId("latency-heatmap")).toBeVisible();
    await expect.poll(async () => Number(await page.getByTestId("latency-heatmap").getAttribute("data-total"))).toBeGreaterThan(0);
    // Its time axis fits the run: from the start to a round time just past the last
    // second measured (not a fixed minute, which a 28 s run filled to 45 %), shared by
    // every time chart. What was measured is painted where it ran: from the first
    // column's start to the last one's end, as a share of the axis. All read at one
    // moment, as the axis grows with the run.
    const live = page.getByTestId("latency-heatmap");
    const seen = await live.evaluate((el) => {
      const c = el.querySelector<HTMLCanvasElement>('[data-testid="heatmap-canvas"]')!;
      const { data, width, height } = c.getContext("2d")!.getImageData(0, 0, c.width, c.height);
      let first = width;
      let last = -1;
      for (let x = 0; x < width; x++)
        for (let y = 0; y < height; y++)
          if (data[(y * width + x) * 4 + 3] > 0) {
            first = Math.min(first, x);
            last = Math.max(last, x);
          }
      const domains = ["live-chart-ops", "live-chart-mib", "live-chart-latency"].map((id) =>
        document.querySelector(`[data-testid="${id}"]`)?.getAttribute("data-x-domain"),
      );
      return { span: el.getAttribute("data-span")!, extent: el.getAttribute("data-extent")!, painted: [first / width, (last + 1) / width], domains };
    });
    const span = Number(seen.span);
    const [start, end] = seen.extent.split(",").map(Number);
    expect(span).toBeGreaterThanOrEqual(end);
    expect(span < 60 || end > 45, `a ${end} s run on a ${span} s axis`).toBe(true);
    expect(Math.abs(seen.painted[0] - start / span)).toBeLessThan(0.01);
    expect(Math.abs(seen.painted[1] - end / span)).toBeLessThan(0.01);
    expect(seen.domains).toEqual([`0,${seen.span}`, `0,${seen.span}`, `0,${seen.span}`]);
    await expect(live.getByTestId("heatmap-time")).toContainText("0 s");
    await expectScaleLabelsApart(live);
    // Every time chart names the phases, and shows latency on a log scale ticked at
    // 1-2-5 (a linear one on request).
    await expect(page.getByTestId("live-chart-ops").locator(".phase-mark")).not.toHaveCount(0);
    await expect(page.getByTestId("live-chart-ops")).toContainText("r1 write");
    await expect(page.getByTestId("live-chart-latency")).toHaveAttribute("data-scale", "log");
    const liveTicks = await tickValues(page.getByTestId("live-chart-latency"));
    expect(liveTicks.length).toBeGreaterThanOrEqual(2);
    for (const v of liveTicks) expect(is125(v), `tick ${v} of ${liveTicks}`).toBe(true);
    await page.getByTestId("live-latency-log").uncheck();
    await expect(page.getByTestId("live-chart-latency")).toHaveAttribute("data-scale", "linear");
    await page.getByTestId("live-latency-log").check();
    await screenshot(page, "live-run");
    await page.getByTestId("stop-run").click();
    await expect(page.getByTestId("open-detail")).toBeVisible();
    // Its status, beside what else its verdict found (an open-loop demo stopped early may have fallen behind).
    await expect(page.locator(".title-row .badge.status-interrupted")).toHaveText("interrupted");
    await page.getByTestId("open-detail").click();
    await expect(page.getByTestId("run-detail")).toBeVisible();
    await expect(page.getByTestId("workload-text")).toContainText("name: demo");
  });

  test("a finished rounds run shows one point per round per line", async ({ page, request }) => {
    const id = await startFromEditor(page, "e2e-rounds", "bucket=dynamic");
    await expect(page.getByTestId("open-detail")).toBeVisible({ timeout: 90_000 });
    // PUT ran in the fill and in each round's write, not in the reads between: its live
    // line breaks there (one stretch per write after the first), never drawn across.
    const putLine = page.getByTestId("live-chart-ops").locator("path.recharts-line-curve").first();
    const moves = ((await putLine.getAttribute("d")) ?? "").match(/M/g)?.length ?? 0;
    expect(moves).toBeGreaterThanOrEqual(3);
    // The legend hides a series: the PUT line goes, the GET line stays.
    const lines = page.getByTestId("live-chart-ops").locator("path.recharts-line-curve");
    const putLegend = page.getByTestId("live-chart-ops").locator('[data-testid="legend-item"][data-series="put ops/s"]');
    const drawn = await lines.count();
    await putLegend.click();
    await expect(lines).toHaveCount(drawn - 1);
    await putLegend.click();
    await expect(lines).toHaveCount(drawn);
    // Once ended, the progress card says how it went rather than how far a phase got.
    await expect(page.getByTestId("live-progress")).toContainText("completed in");
    await page.getByTestId("open-detail").click();
    await expect(page).toHaveURL(url(`/runs/${id}`));
    const chart = page.getByTestId("rounds-chart");
    await expect(chart.locator('[data-testid="rounds-point"]')).toHaveCount(6);
    for (const series of ["write · put", "read · get"]) {
      await expect(chart.locator(`[data-testid="rounds-point"][data-series="${series}"]`)).toHaveCount(3);
    }
    // Each operation keeps its colour from the live page: PUT blue, GET green.
    await expect(chart.locator('[data-testid="rounds-point"][data-series="write · put"]').first()).toHaveAttribute("stroke", "#2563eb");
    await expect(chart.locator('[data-testid="rounds-point"][data-series="read · get"]').first()).toHaveAttribute("stroke", "#16a34a");
    await expect(page.getByTestId("distribution-chart").locator("path.recharts-curve")).toHaveCount(1);
    await expect(page.getByTestId("interval-chart")).toBeVisible();
    await expect(page.getByTestId("rounds-table").locator("tbody tr")).toHaveCount(7);
    // Each phase row with its 95 % intervals, or why it has none (a short phase).
    await expectIntervalsOrWhyNot(page);
    // The heatmap of each operation: PUT in the fill and three writes, then GET.
    const heatmap = page.getByTestId("latency-heatmap");
    await expect(heatmap).toHaveAttribute("data-total", "2300");
    // Every phase is named, those without a PUT too, and the colour scale has numbers,
    // none drawn over another.
    await expect(heatmap.locator('[data-testid="heatmap-phase"]')).toHaveCount(7);
    await expect(heatmap.getByTestId("heatmap-scale")).toContainText("1");
    await expectScaleLabelsApart(heatmap);
    // Its latency rows fit what was measured (not always 10 µs to 100 s), labelled at
    // 1-2-5 latencies.
    const rows = ((await heatmap.getAttribute("data-rows")) ?? "").split(",").map(Number);
    expect(rows[1] - rows[0], `rows ${rows}`).toBeLessThan(70);
    const latencyLabels = await heatmap.getByTestId("heatmap-latency-axis").locator("span").allTextContents();
    expect(latencyLabels.length).toBeGreaterThanOrEqual(2);
    for (const l of latencyLabels) expect(l).toMatch(/^[125]0* (µs|ms|s)$/);
    await page.getByTestId("heatmap-op").selectOption("get");
    await expect(heatmap).toHaveAttribute("data-total", "1800");
    // Latency across rounds opens on a log scale, and can be made linear.
    const latency = page.getByTestId("latency-rounds-chart");
    await expect(latency).toHaveAttribute("data-scale", "log");
    await page.getByTestId("latency-log").uncheck();
    await expect(latency).toHaveAttribute("data-scale", "linear");
    await page.getByTestId("latency-log").check();
    // Its axis is in the unit that fits the latencies measured: its largest tick reads
    // at least 1 (250 µs, not 0.25 ms).
    await expect(latency).toHaveAttribute("data-unit", /^(µs|ms|s)$/);
    await expect(latency.locator(".recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value").first()).toBeVisible();
    const values = await tickValues(latency);
    expect(Math.max(...values)).toBeGreaterThanOrEqual(1);
    // Ticked at 1-2-5 (… 0.5, 1, 2, 5, 10 …), never at 0.7 or 7.
    expect(values.length).toBeGreaterThanOrEqual(2);
    for (const v of values) expect(is125(v), `tick ${v} of ${values}`).toBe(true);
    // The latency distribution takes the operation's colour.
    await expect(page.getByTestId("distribution-chart").locator("path.recharts-curve")).toHaveAttribute("stroke", /#(2563eb|16a34a)/);
    await expect(page.getByTestId("phase-heatmap")).toBeVisible();
    await screenshot(page, "run-detail");
    const pageSections = await sectionsOf(page);
    // The offline report, opened from a file, shows the same: every section of the
    // page, its points, its heatmaps, the operations' colours, the workload.
    await openReport(page, request, id);
    await expect(page.getByTestId("phase-heatmap")).toBeVisible();
    await expect(page.getByTestId("distribution-chart")).toBeVisible();
    expect(await sectionsOf(page)).toEqual(pageSections);
    const reportChart = page.getByTestId("rounds-chart");
    await expect(reportChart.locator('[data-testid="rounds-point"]')).toHaveCount(6);
    await expect(reportChart.locator('[data-testid="rounds-point"][data-series="read · get"]').first()).toHaveAttribute("stroke", "#16a34a");
    await expect(page.getByTestId("latency-heatmap").first()).toHaveAttribute("data-total", "2300");
    await expect(page.getByTestId("workload-text")).toContainText("name: e2e-rounds");
    await expectIntervalsOrWhyNot(page);
    await screenshot(page, "report");
  });

  test("two runs compare by round with the server's verdicts", async ({ page }) => {
    const second = await startFromEditor(page, "e2e-rounds", "bucket=presharded");
    await expect(page.getByTestId("open-detail")).toBeVisible({ timeout: 90_000 });
    await page.goto(url("/runs"));
    const rows = page.locator('[data-testid^="run-row-"]', { hasText: "e2e-rounds" });
    await expect(rows).toHaveCount(2);
    await screenshot(page, "runs");
    for (const row of await rows.all()) await row.getByRole("checkbox").check();
    await page.getByTestId("compare-button").click();
    await expect(page).toHaveURL(/\/compare\?runs=/);
    await expect(page.getByTestId("compare-run")).toHaveCount(2);
    await expect(page.getByTestId("compare-page")).toContainText(second);
    await expect(page.getByTestId("rounds-chart").locator('[data-testid="rounds-point"]')).toHaveCount(12);
    // One chart per round phase; an operation keeps its colour, each run has its marker.
    await expect(page.getByTestId("compare-panel")).toHaveCount(2);
    const readPanel = page.locator('[data-testid="compare-panel"][data-phase="read"]');
    const readPoints = readPanel.locator('[data-testid="rounds-point"]');
    await expect(readPoints).toHaveCount(6);
    for (const point of await readPoints.all()) await expect(point).toHaveAttribute("stroke", "#16a34a");
    const markers = await readPoints.evaluateAll((els) => [...new Set(els.map((e) => e.getAttribute("data-marker")))].sort());
    expect(markers).toEqual(["circle", "square"]);
    await expect(page.getByTestId("distribution-point").first()).toHaveAttribute("stroke", "#2563eb");
    // The server's verdicts lead: the study in one paragraph, the changes beyond the
    // noise, then every metric — per round by default.
    const judged = page.getByTestId("judged-run");
    await expect(judged).toHaveCount(1);
    await expect(judged.getByTestId("judged-paragraph")).toContainText("Throughput of");
    await expect(judged.getByTestId("judged-paragraph")).toContainText("round by round");
    await expect(judged.getByTestId("real-changes").or(judged.getByTestId("no-real-change"))).toBeVisible();
    const verdicts = judged.getByTestId("verdict-table");
    await expect(verdicts).toContainText("round 2 write");
    await expect(verdicts).not.toContainText("(all rounds)");
    await expect(page.getByTestId("judged-floor")).toContainText("±2 % noise floor");
    // A round of about a second has too few seconds for an interval: inconclusive, grey,
    // saying what it needs.
    const short = verdicts.locator('[data-testid="verdict-row"][data-verdict="inconclusive"]', { hasText: "round 2 write" }).first();
    await expect(short.getByTestId("verdict-cell")).toHaveClass("muted");
    await expect(short.getByTestId("verdict-why")).toContainText("an interval needs at least 10");
    await expectOnlyRealChangesColoured(verdicts);
    // Each phase's rounds together instead, kept in the address.
    await page.getByTestId("judged-rounds").selectOption("together");
    await expect(page).toHaveURL(/rounds=together/);
    await expect(verdicts).toContainText("write (all rounds)");
    await expect(verdicts).not.toContainText("round 2 write");
    await expectOnlyRealChangesColoured(verdicts);
    // A wider noise floor is kept in the address and judged again by the server.
    await page.getByTestId("noise-floor").selectOption({ label: "±5 %" });
    await expect(page).toHaveURL(/floor=5/);
    await expect(page.getByTestId("judged-floor")).toContainText("±5 % noise floor");
    await page.getByTestId("judged-rounds").selectOption("each");
    await expect(page.getByTestId("distribution-chart").locator("path.recharts-curve")).toHaveCount(2);
    await screenshot(page, "compare");
    // Normalised to the first run, p99 chosen: the URL holds the view, and opening it
    // again shows the same.
    await page.getByTestId("normalise").check();
    await page.getByRole("combobox", { name: "compare metric" }).selectOption("p99_ms");
    await expect(page).toHaveURL(/normalise=1/);
    await expect(page).toHaveURL(/metric=p99_ms/);
    await expect(page.getByTestId("compare-page").locator("h2", { hasText: "across rounds" })).toContainText("× #1");
    // p99 lines in p99's dash, as on every chart.
    await page.getByTestId("normalise").uncheck();
    await expect(page.getByTestId("compare-panel").first().locator("path.recharts-curve").first()).toHaveAttribute("stroke-dasharray", "6 3");
    await expect(page.getByTestId("rounds-chart").first()).toHaveAttribute("data-scale", "log");
    await page.getByTestId("normalise").check();
    await page.goto(page.url());
    await expect(page.getByTestId("normalise")).toBeChecked();
    await expect(page.getByRole("combobox", { name: "compare metric" })).toHaveValue("p99_ms");
    await expect(page.getByTestId("rounds-chart").locator('[data-testid="rounds-point"]')).toHaveCount(12);
  });

  test("three runs compare side by side", async ({ page }) => {
    const third = await startFromEditor(page, "e2e-rounds", "bucket=third");
    await expect(page.getByTestId("open-detail")).toBeVisible({ timeout: 90_000 });
    await page.goto(url("/runs"));
    const rows = page.locator('[data-testid^="run-row-"]', { hasText: "e2e-rounds" });
    await expect(rows).toHaveCount(3);
    for (const row of await rows.all()) await row.getByRole("checkbox").check();
    await page.getByTestId("compare-button").click();
    await expect(page.getByTestId("compare-run")).toHaveCount(3);
    await expect(page.getByTestId("compare-page")).toContainText(third);
    // Three runs × (write · put, read · get) × three rounds.
    await expect(page.getByTestId("rounds-chart").locator('[data-testid="rounds-point"]')).toHaveCount(18);
    await expect(page.getByTestId("distribution-chart").locator("path.recharts-curve")).toHaveCount(3);
    // Each later run judged against the first, each with its paragraph.
    const judged = page.getByTestId("judged-run");
    await expect(judged).toHaveCount(2);
    await expect(judged.nth(1).locator("h3")).toContainText("#3 bucket=third against #1");
    await expect(judged.nth(1).getByTestId("judged-paragraph")).toContainText(third);
    await screenshot(page, "compare-3");
  });

  test("the editor marks a broken line while typing", async ({ page }) => {
    await page.goto(url("/workloads/e2e-rounds"));
    await expect(page.getByTestId("validation-ok")).toBeVisible();
    const editor = page.getByTestId("workload-textarea");
    const text = await editor.inputValue();
    await editor.fill(text.replace("objects: { size: 2KiB }", "objects: { size: 2KiB }\nbogus_field: 1"));
    await expect(page.getByTestId("validation-error")).toContainText("bogus_field");
    await expect(page.getByTestId("error-line")).toHaveText("7");
    await expect(page.getByTestId("start-run")).toBeDisabled();
    await screenshot(page, "workloads");
  });
});

/** The intervals table has a row per phase row, each with a throughput ±x % and
 * latencies with their ends, or the reason it has none. */
async function expectIntervalsOrWhyNot(page: Page): Promise<void> {
  const rows = page.getByTestId("intervals-table").getByTestId("interval-row");
  await expect(rows).toHaveCount(7);
  for (const text of await rows.allTextContents()) {
    expect(text).toMatch(/ops\/s ±[\d.]+ %.*\(.+–.+\)|no interval: \d+ measured seconds?; an interval needs at least 10/);
  }
}

/** Every verdict row's verdict is coloured only when it is a real change: green
 * improved, red regressed, grey the rest. */
async function expectOnlyRealChangesColoured(table: Locator): Promise<void> {
  const rows = await table.getByTestId("verdict-row").evaluateAll((els) =>
    els.map((e) => [e.getAttribute("data-verdict"), e.querySelector('[data-testid="verdict-cell"]')?.className]),
  );
  expect(rows.length).toBeGreaterThan(0);
  const colour = { improved: "better", regressed: "worse" } as Record<string, string>;
  for (const [verdict, cls] of rows) expect(cls, `${verdict}`).toBe(colour[verdict ?? ""] ?? "muted");
}

/** The headings of a run's results, in order, and the test ids of its charts. */
async function sectionsOf(page: Page): Promise<string[]> {
  const headings = await page.locator("h2, h3, h4").allTextContents();
  const charts = await page.locator(".chart, .heatmap").evaluateAll((els) => els.map((e) => e.getAttribute("data-testid") ?? ""));
  return headings.map((h) => h.replace(/\d[\d,]*/g, "N")).concat(charts);
}
