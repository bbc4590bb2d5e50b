// A keystorm server bound to every address with a token and a read-only token (reached
// through 127.0.0.1): the UI asks for the token and says why, refuses a wrong one
// plainly, and with the right one shows the runs, fills a live run's charts through the
// event stream (read with the token in a header) and saves an export; with the
// read-only token it shows everything but disables what would change anything, saying
// why; a forgotten token is asked for again.
import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type APIRequestContext, type Page, expect, test } from "@playwright/test";
import { printed, screenshot } from "./support";

const here = dirname(fileURLToPath(import.meta.url));
const bin = process.env.KEYSTORM_BIN ?? resolve(here, "../../target/debug/keystorm");
const TOKEN = "e2e-full-token-0123456789";
const READ_TOKEN = "e2e-read-token-0123456789";

/** Puts at 100/s until stopped (or for a minute): long enough to watch and stop. */
const TRICKLE = `name: e2e-trickle
target: { endpoint: embedded }
buckets: { names: [e2e-trickle] }
objects: { size: 1KiB }
before:
  - { name: trickle, op: put, workers: 2, rate: 100, duration: 60s }
`;

async function chartPoints(page: Page, testId: string): Promise<number> {
  return Number(await page.getByTestId(testId).getAttribute("data-points"));
}

async function enterToken(page: Page, token: string): Promise<void> {
  await page.getByTestId("token-input").fill(token);
  await page.getByTestId("token-submit").click();
}

test.describe.serial("a server with a token", () => {
  let child: ChildProcess;
  let base = "";
  let root = "";
  const at = (path: string) => base + path;
  const bearer = { authorization: `Bearer ${TOKEN}` };

  /** Starts a run with the full token (waiting while another holds the server); its id. */
  async function startRun(request: APIRequestContext, yaml: string): Promise<string> {
    let id = "";
    await expect
      .poll(
        async () => {
          const resp = await request.post(at("/api/runs"), { data: { yaml }, headers: bearer });
          if (resp.ok()) id = ((await resp.json()) as { run_id: string }).run_id;
          return resp.status();
        },
        { timeout: 60_000, message: "the server accepts the run" },
      )
      .toBe(201);
    return id;
  }

  async function runStatus(request: APIRequestContext, id: string): Promise<string> {
    const resp = await request.get(at(`/api/runs/${encodeURIComponent(id)}`), { headers: bearer });
    return ((await resp.json()) as { info: { status: string } }).info.status;
  }

  test.beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "keystorm-e2e-token-"));
    const workloads = join(root, "workloads");
    mkdirSync(workloads);
    copyFileSync(join(here, "fixtures", "e2e-rounds.yaml"), join(workloads, "e2e-rounds.yaml"));
    // Beyond loopback, in plain HTTP (--insecure-http): the browser test is about the
    // token; TLS is tested on its own (server/app/tests/tls.rs).
    child = spawn(bin, ["serve", "--bind", "0.0.0.0", "--insecure-http", "--port", "0", "--workloads", workloads, "--results", join(root, "results")], {
      stdio: ["ignore", "pipe", "inherit"],
      // The tokens from the environment, so they are on no command line.
      env: { ...process.env, KEYSTORM_TOKEN: TOKEN, KEYSTORM_READ_TOKEN: READ_TOKEN },
    });
    const m = await printed(child, /serving http:\/\/\S+:(\d+)/);
    base = `http://127.0.0.1:${m[1]}`;
  });

  test.afterAll(() => {
    child.kill("SIGKILL");
    rmSync(root, { recursive: true, force: true });
  });

  test("the UI asks for the token, refuses a wrong one, and with the right one shows runs and a live run", async ({ page, request }) => {
    test.setTimeout(180_000);
    const finished = await startRun(request, readFileSync(join(here, "fixtures", "e2e-rounds.yaml"), "utf8"));
    await expect.poll(() => runStatus(request, finished), { timeout: 120_000 }).toBe("completed");

    await page.goto(at("/runs"));
    const prompt = page.getByTestId("token-prompt");
    await expect(prompt).toContainText("reachable from the network, so it asks for its token");
    await expect(prompt).toContainText("kept for this browser tab only");
    await expect(page.getByTestId("runs-table")).toHaveCount(0);
    await screenshot(page, "token-prompt");

    await enterToken(page, "not-this-servers-token-0000");
    await expect(page.getByTestId("token-problem")).toContainText("The server refused this token");
    await expect(page.getByTestId("token-input")).toBeVisible();
    await screenshot(page, "token-refused");

    await enterToken(page, TOKEN);
    await expect(page.getByTestId(`run-row-${finished}`)).toBeVisible();
    expect(await page.evaluate(() => sessionStorage.getItem("keystorm-token"))).toBe(TOKEN);
    await expect(page.getByTestId("read-only-badge")).toHaveCount(0);

    // An export is saved with the token (a plain link could not send it).
    await page.goto(at(`/runs/${finished}`));
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-summary.csv").click()]);
    expect(download.suggestedFilename()).toBe("summary.csv");
    expect(readFileSync((await download.path())!, "utf8")).toContain("section,round,phase,op");

    // A live run: its charts fill from the event stream read with the token.
    const live = await startRun(request, TRICKLE);
    await page.goto(at(`/runs/${live}/live`));
    await expect(page.getByTestId("live-phase")).toContainText("trickle");
    await expect.poll(() => chartPoints(page, "live-chart-ops"), { timeout: 60_000 }).toBeGreaterThanOrEqual(3);
    const before = await chartPoints(page, "live-chart-ops");
    await expect.poll(() => chartPoints(page, "live-chart-ops"), { timeout: 60_000 }).toBeGreaterThan(before);
    // The full token stops it from the page.
    await page.getByTestId("stop-run").click();
    await expect(page.getByTestId("open-detail")).toBeVisible({ timeout: 60_000 });
    await expect(page.locator(".title-row .badge.status-interrupted")).toHaveText("interrupted");
  });

  test("with the read-only token the UI shows runs but disables what would change them, saying why", async ({ page, request }) => {
    test.setTimeout(180_000);
    await page.goto(at("/workloads/e2e-rounds"));
    await enterToken(page, READ_TOKEN);
    await expect(page.getByTestId("read-only-badge")).toBeVisible();
    const startButton = page.getByTestId("start-run");
    await expect(startButton).toBeDisabled();
    await expect(startButton).toHaveAttribute("title", /read-only token/);
    await expect(page.getByTestId("save-workload")).toBeDisabled();
    await expect(page.getByTestId("validation-off")).toContainText("read-only token");
    await screenshot(page, "token-read-only");

    // A run started elsewhere is watched live, but not stopped from here.
    const live = await startRun(request, TRICKLE);
    await page.goto(at(`/runs/${live}/live`));
    await expect.poll(() => chartPoints(page, "live-chart-ops"), { timeout: 60_000 }).toBeGreaterThanOrEqual(2);
    const stop = page.getByTestId("stop-run");
    await expect(stop).toBeDisabled();
    await expect(stop).toHaveAttribute("title", /read-only token/);
    expect((await request.post(at(`/api/runs/${live}/stop`), { headers: { authorization: `Bearer ${READ_TOKEN}` } })).status()).toBe(403);
    expect((await request.post(at(`/api/runs/${live}/stop`), { headers: bearer })).status()).toBe(202);
    await expect(page.getByTestId("open-detail")).toBeVisible({ timeout: 60_000 });

    // Forgotten, the token is asked for again.
    await page.getByTestId("forget-token").click();
    await expect(page.getByTestId("token-why")).toContainText("forgotten");
    expect(await page.evaluate(() => sessionStorage.getItem("keystorm-token"))).toBeNull();
  });
});
