// Agents under the server as controller: `keystorm sim` and three `keystorm agent`
// processes; a round workload (fill, then write / read / mixed) started through the API
// on three agents. The Agents page shows the agents and the shards running, the live
// page the shards' intervals merged as they come, and the merged run's page the
// per-agent breakdown beside the merged numbers.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type Page, expect, test } from "@playwright/test";
import { printed, screenshot, url } from "./support";

const here = dirname(fileURLToPath(import.meta.url));
const bin = process.env.KEYSTORM_BIN ?? resolve(here, "../../target/debug/keystorm");
const AGENTS = 3;

function workload(endpoint: string): string {
  return `name: e2e-agents
target: { endpoint: "${endpoint}" }
buckets: { names: [e2e-agents] }
keyspace: { seed: 8, prefix: a/ }
objects: { size: 100B }
before:
  - { name: fill, op: put, workers: 4, until_objects: 3000 }
rounds:
  count: 2
  phases:
    - { name: write, op: put, workers: 4, duration: 3s }
    - { name: read, op: get, workers: 4, operations: 1500 }
    - name: mixed
      mix: { get: 70, put: 20, list: 5, delete: 5 }
      workers: 4
      operations: 1500
`;
}

async function chartPoints(page: Page, testId: string): Promise<number> {
  return Number(await page.getByTestId(testId).getAttribute("data-points"));
}

type AgentsView = {
  agents: Array<{ name: string; state: string }>;
  run: { run_id: string; state: string; merged_run: string | null; shards: Array<{ state: string }> } | null;
};

test.describe.serial("agents", () => {
  const children: ChildProcess[] = [];
  let root = "";
  let endpoint = "";

  test.beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "keystorm-e2e-agents-"));
    const sim = spawn(bin, ["sim", "--port", "0", "--storage", "size-only"], { stdio: ["ignore", "pipe", "inherit"] });
    children.push(sim);
    endpoint = (await printed(sim, /listening on (http:\/\/\S+)/))[1];
    const env = { ...process.env, AWS_ACCESS_KEY_ID: "any", AWS_SECRET_ACCESS_KEY: "any" };
    for (let i = 0; i < AGENTS; i++) {
      const args = ["agent", "--controller", url(""), "--name", `agent-${i}`, "--progress", "quiet", "--results", join(root, `agent-${i}`)];
      children.push(spawn(bin, args, { stdio: "ignore", env }));
    }
  });

  test.afterAll(() => {
    for (const c of children) c.kill("SIGKILL");
    rmSync(root, { recursive: true, force: true });
  });

  test("the Agents page shows the agents and the shards of a run across them, then its merged results", async ({ page, request }) => {
    test.setTimeout(180_000);
    await page.goto(url("/agents"));
    await expect(page.locator('[data-testid="agent-row"][data-state="idle"]')).toHaveCount(AGENTS);
    await expect(page.getByTestId("fleet-start-button")).toHaveText(`Start on 1 of ${AGENTS} idle agents`);
    await screenshot(page, "agents-idle");
    const started = await request.post(url("/api/runs"), { data: { yaml: workload(endpoint), agents: AGENTS, labels: { agents: String(AGENTS) } } });
    expect(started.status()).toBe(201);
    const runId = ((await started.json()) as { run_id: string }).run_id;

    // While it runs: three agents running a shard each, and the shards' table.
    await expect(page.locator('[data-testid="agent-row"][data-state="running"]')).toHaveCount(AGENTS);
    await expect(page.locator('[data-testid="shard-row"][data-state="running"]')).toHaveCount(AGENTS);
    await expect(page.getByTestId("fleet-run")).toContainText(runId);
    await expect(page.getByTestId("shards-table")).toContainText("round");
    await screenshot(page, "agents-running");

    // The live page: the shards' intervals merged per second by the controller, as a
    // run of one process is watched, and the shards beside the charts.
    await page.goto(url(`/runs/${runId}/live`));
    await expect(page.getByTestId("live-badge")).toContainText(runId);
    await expect(page.getByTestId("live-shards").getByTestId("shard-row")).toHaveCount(AGENTS);
    await expect(page.getByTestId("live-phase")).not.toContainText("starting");
    await expect.poll(() => chartPoints(page, "live-chart-ops"), { timeout: 60_000 }).toBeGreaterThanOrEqual(3);
    const before = await chartPoints(page, "live-chart-ops");
    await expect.poll(() => chartPoints(page, "live-chart-ops"), { timeout: 60_000 }).toBeGreaterThan(before);
    await expect(page.getByTestId("live-chart-latency")).toBeVisible();
    await screenshot(page, "agents-live");

    // At the end the exact merge replaces the live view, and the page says so.
    await expect(page.getByTestId("open-detail")).toBeVisible({ timeout: 150_000 });
    await expect(page.locator(".badge").first()).toContainText("completed");
    expect(((await (await request.get(url("/api/agents"))).json()) as AgentsView).run?.state).toBe("completed");
    await page.goto(url("/agents"));
    await page.getByTestId("merged-run-link").click();
    await expect(page).toHaveURL(new RegExp(`/runs/${runId}$`));
    // The merged run: rounds × phases from added histograms, then each agent on its own.
    const perAgent = page.getByTestId("per-agent-table");
    await expect(perAgent).toBeVisible();
    for (let i = 0; i < AGENTS; i++) await expect(perAgent).toContainText(`${i}/${AGENTS}`);
    // put, get, list and delete on shard 0 (it alone lists); put, get, delete at least on the others.
    expect(await page.getByTestId("per-agent-row").count()).toBeGreaterThanOrEqual(3 * AGENTS);
    await expect(page.getByText("Rounds × phases")).toBeVisible();
    await screenshot(page, "agents-merged-run");
  });
});
