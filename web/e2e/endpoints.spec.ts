// A run that drives two endpoints, end to end: two `keystorm sim` processes (the second
// 25 ms slower on every PUT, each its own store), a round-robin put in two rounds, and
// the second sim killed in the first round. The live page lists both endpoints and then
// the second as down; the run page's Endpoints section breaks every row down by endpoint
// (shares adding up to 100 %, the slow one's p99 the higher), lists the down event and
// marks it on the phase's charts; the offline report shows the same, the compare page
// puts the endpoints side by side, and the Agents page says which endpoint an agent
// started with --endpoint drives.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { openReport, printed, screenshot, screenshotOf, startRun, url, waitFinished } from "./support";

const here = dirname(fileURLToPath(import.meta.url));
const bin = process.env.KEYSTORM_BIN ?? resolve(here, "../../target/debug/keystorm");
// Keys unlike any name of the run: secrets are redacted wherever their text appears.
const ACCESS_KEY = "AKIAE2EGATEWAYS";
const SECRET_KEY = "e2e-gateways-secret-key";
const BUCKET = "e2e-endpoints";
const CREDENTIALS = `{ access_key: ${ACCESS_KEY}, secret_key: ${SECRET_KEY} }`;

/** One PUT to `endpoint`, creating the bucket there (each sim is a store of its own). */
function bucketOn(endpoint: string): string {
  return `name: e2e-endpoints-bucket
target: { endpoint: "${endpoint}", credentials: ${CREDENTIALS} }
buckets: { name: ${BUCKET} }
objects: { size: 1KiB }
before:
  - { name: create, op: put, workers: 1, operations: 1 }
`;
}

/** Puts spread over both endpoints in turn; a lost one's share shifts to the other. */
function twoEndpoints(a: string, b: string): string {
  return `name: e2e-endpoints
target:
  endpoints: ["${a}", "${b}"]
  spread: round_robin
  on_endpoint_down: shift
  endpoint_health: { down_after: 3, probe: 500ms, probe_max: 2s }
  credentials: ${CREDENTIALS}
buckets: { name: ${BUCKET}, create: false }
objects: { size: 1KiB }
rounds:
  count: 2
  phases:
    - { name: write, op: put, workers: 4, operations: 6000 }
`;
}

/** Starts `keystorm sim` with the test's keys; resolves with it and its URL. */
async function sim(extra: string[]): Promise<{ child: ChildProcess; endpoint: string }> {
  const child = spawn(bin, ["sim", "--port", "0", "--access-key", ACCESS_KEY, "--secret-key", SECRET_KEY, ...extra], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const endpoint = (await printed(child, /listening on (http:\/\/\S+)/))[1];
  child.stdout!.resume();
  return { child, endpoint };
}

test.describe.serial("endpoints", () => {
  const children: ChildProcess[] = [];
  let root = "";
  let fast = "";
  let slow = "";
  let slowSim: ChildProcess;
  let setupRun = "";
  let runId = "";

  test.beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "keystorm-e2e-endpoints-"));
    const a = await sim([]);
    const b = await sim(["--latency", "put=25ms"]);
    children.push(a.child, b.child);
    fast = a.endpoint;
    slow = b.endpoint;
    slowSim = b.child;
  });

  test.afterAll(() => {
    for (const c of children) c.kill("SIGKILL");
    rmSync(root, { recursive: true, force: true });
  });

  test("a run over two endpoints, one lost mid-phase: live, run page, report", async ({ page, request }) => {
    test.setTimeout(180_000);
    for (const endpoint of [fast, slow]) {
      setupRun = await startRun(request, bucketOn(endpoint), { endpoints: "bucket" });
      expect(await waitFinished(request, setupRun)).toBe("completed");
    }
    runId = await startRun(request, twoEndpoints(fast, slow), { endpoints: "two" });

    // Live: both endpoints take puts; then the slow one is killed and shows as down.
    await page.goto(url(`/runs/${runId}/live`));
    const liveRow = (endpoint: string) => page.locator(`[data-testid="live-endpoint-row"][data-endpoint="${endpoint}"]`);
    await expect(page.getByTestId("live-phase")).toContainText("round 1 · write");
    await expect(liveRow(slow).locator("td").nth(2)).toHaveText(/ops\/s$/);
    await expect(liveRow(fast).locator("td").nth(2)).toHaveText(/ops\/s$/);
    slowSim.kill("SIGKILL");
    await expect(liveRow(slow)).toHaveAttribute("data-down", "true");
    await expect(liveRow(fast)).toHaveAttribute("data-down", "false");
    const liveEvent = page.getByTestId("live-endpoints").getByTestId("endpoint-event").first();
    await expect(liveEvent).toHaveAttribute("data-state", "down");
    await expect(liveEvent).toContainText(slow);
    await expect(page.getByTestId("live-chart-ops").locator(".endpoint-mark-down")).toHaveCount(1);
    await expect(page.getByTestId("live-chart-ops")).toContainText(`down: ${new URL(slow).host}`);
    await screenshot(page, "endpoints-live");
    // The run goes on without it.
    expect(await waitFinished(request, runId)).toBe("completed");

    // The run page: both endpoints in every row, shares adding up to 100 %.
    await page.goto(url(`/runs/${runId}`));
    const section = page.getByTestId("endpoints-section");
    await expect(section).toBeVisible();
    await expect(page.getByTestId("run-endpoints")).toHaveText(`${fast}, ${slow}`);
    const rows = page.getByTestId("endpoint-row");
    await expect(rows.first()).toBeVisible();
    const lines = await rows.evaluateAll((trs) =>
      trs.map((tr) => ({
        endpoint: tr.getAttribute("data-endpoint") ?? "",
        place: tr.getAttribute("data-place") ?? "",
        share: Number(tr.getAttribute("data-share")),
        p99: Number(tr.getAttribute("data-p99-us")),
        shown: tr.querySelector('[data-testid="endpoint-share"]')?.textContent ?? "",
      })),
    );
    const round1 = lines.filter((l) => l.place === "round 1|write|put");
    expect(round1.map((l) => l.endpoint)).toEqual([fast, slow]);
    for (const place of new Set(lines.map((l) => l.place))) {
      const shares = lines.filter((l) => l.place === place).map((l) => l.share);
      expect(shares.reduce((a, b) => a + b, 0), place).toBeCloseTo(100, 6);
    }
    // Shares as the table shows them: "66.4 %", adding up to 100 give or take rounding.
    const shown = round1.map((l) => Number(l.shown.replace(" %", "")));
    expect(Math.abs(shown.reduce((a, b) => a + b, 0) - 100)).toBeLessThanOrEqual(0.1);
    // The slow endpoint (25 ms more per PUT) has the higher p99, above those 25 ms.
    const [fastRow, slowRow] = round1;
    expect(slowRow.p99).toBeGreaterThan(fastRow.p99);
    expect(slowRow.p99).toBeGreaterThan(25_000);
    // It took less than half of round 1: it was lost during it.
    expect(slowRow.share).toBeLessThan(50);
    // The chart across phases: one line per endpoint, a point per round.
    await expect(page.getByTestId("endpoints-p99-chart")).toContainText(new URL(slow).host);
    await expect(page.getByTestId("endpoints-throughput-chart").locator('[data-testid="places-point"]')).not.toHaveCount(0);
    // The down event, listed and marked on round 1's per-second charts.
    const events = section.getByTestId("endpoint-event");
    await expect(events.first()).toHaveAttribute("data-state", "down");
    await expect(events.first()).toHaveAttribute("data-endpoint", slow);
    await expect(events.first()).toContainText("round 1 · write");
    await page.getByTestId("phase-picker").selectOption("round|1|write|put");
    for (const chart of ["interval-chart", "interval-latency-chart"]) {
      await expect(page.getByTestId(chart).locator(".endpoint-mark-down")).toHaveCount(1);
      await expect(page.getByTestId(chart)).toContainText(`down: ${new URL(slow).host}`);
    }
    await screenshot(page, "endpoints-run");
    await screenshotOf(section, "endpoints-section");
    await screenshotOf(page.getByTestId("interval-chart"), "endpoints-phase-chart");

    // The offline report draws the same.
    await openReport(page, request, runId);
    await expect(page.getByTestId("endpoint-row")).toHaveCount(lines.length);
    await expect(page.getByTestId("endpoints-section").getByTestId("endpoint-event").first()).toHaveAttribute("data-state", "down");
    await page.getByTestId("phase-picker").selectOption("round|1|write|put");
    await expect(page.getByTestId("interval-chart").locator(".endpoint-mark-down")).toHaveCount(1);
    await screenshotOf(page.getByTestId("endpoints-section"), "endpoints-report");
  });

  test("the compare page puts each endpoint's figures side by side", async ({ page }) => {
    await page.goto(url(`/compare?runs=${setupRun},${runId}`));
    const table = page.getByTestId("compare-endpoints-table");
    await expect(table).toBeVisible();
    const row = (endpoint: string) => table.locator(`[data-testid="compare-endpoint-row"][data-endpoint="${endpoint}"]`);
    await expect(row(fast)).toHaveCount(1);
    await expect(row(slow)).toHaveCount(1);
    // The one-endpoint run breaks nothing down: its cells are "–".
    await expect(row(slow).getByTestId("compare-endpoint-ops").first()).toHaveText("–");
    await expect(row(slow).getByTestId("compare-endpoint-ops").nth(1)).toHaveText(/ops\/s$/);
    await expect(row(slow).getByTestId("compare-endpoint-p99").nth(1)).toHaveText(/ms$/);
    await screenshotOf(page.getByTestId("compare-endpoints"), "endpoints-compare");
  });

  test("the Agents page says which endpoint each agent drives", async ({ page, request }) => {
    const name = "e2e-endpoint-agent";
    const agent = spawn(
      bin,
      ["agent", "--controller", url(""), "--name", name, "--endpoint", fast, "--progress", "quiet", "--results", join(root, "agent")],
      { stdio: "ignore", env: { ...process.env, AWS_ACCESS_KEY_ID: ACCESS_KEY, AWS_SECRET_ACCESS_KEY: SECRET_KEY } },
    );
    children.push(agent);
    await page.goto(url("/agents"));
    const mine = page.getByTestId("agent-row").filter({ hasText: name });
    await expect(mine.getByTestId("agent-endpoint")).toHaveText(fast);
    await screenshot(page, "endpoints-agents");
    // Stopped, it leaves: the other tests see no agent of its.
    agent.kill("SIGTERM");
    await expect
      .poll(async () => ((await (await request.get(url("/api/agents"))).json()) as { agents: Array<{ name: string }> }).agents.some((a) => a.name === name), {
        timeout: 30_000,
      })
      .toBe(false);
  });
});
