// Helpers for the browser tests: the server's address, starting a run and waiting for
// it through the API, and screenshots of each page.
import { type APIRequestContext, type Locator, type Page, expect, test } from "@playwright/test";
import { type ChildProcess, execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { STATE_FILE } from "./global-setup";

const here = dirname(fileURLToPath(import.meta.url));

export function url(path: string): string {
  const base = process.env.KEYSTORM_URL ?? (JSON.parse(readFileSync(STATE_FILE, "utf8")) as { url: string }).url;
  return base + path;
}

/**
 * Saves a full-page screenshot to e2e/screenshots/NAME.png (ignored by git). The images
 * in docs/screenshots are refreshed from there by scripts/screenshots.sh, never by a
 * test run.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = join(here, "screenshots");
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}

/** Opens the run's offline report (report.html, saved to a file in the test's own
 * output folder, which Playwright clears) in the page, from file:// as a reader would. */
export async function openReport(page: Page, request: APIRequestContext, id: string): Promise<void> {
  const resp = await request.get(url(`/api/runs/${encodeURIComponent(id)}/export/report.html`));
  expect(resp.status()).toBe(200);
  const file = test.info().outputPath(`report-${id}.html`);
  writeFileSync(file, await resp.text());
  await page.goto(`file://${file}`);
}

/** Opens the offline report of runs compared with the first (`keystorm report BASE
 * NEW…`, written by the CLI from the server's results folder into the test's own
 * output folder), from file:// as a reader would. */
export async function openComparisonReport(page: Page, ids: string[], extra: string[] = []): Promise<void> {
  const { root } = JSON.parse(readFileSync(STATE_FILE, "utf8")) as { root: string };
  const bin = process.env.KEYSTORM_BIN ?? join(here, "../../target/debug/keystorm");
  const file = test.info().outputPath(`compare-${ids.join("-")}.html`);
  execFileSync(bin, ["report", ...ids, "--results", join(root, "results"), "--output", file, ...extra], { stdio: "pipe" });
  await page.goto(`file://${file}`);
}

/** Saves a screenshot of one part of a page to e2e/screenshots/NAME.png. */
export async function screenshotOf(part: Locator, name: string): Promise<void> {
  const dir = join(here, "screenshots");
  mkdirSync(dir, { recursive: true });
  await part.screenshot({ path: join(dir, `${name}.png`) });
}

/** Starts a run (waiting while another one holds the server) and returns its id. */
export async function startRun(request: APIRequestContext, yaml: string, labels: Record<string, string>): Promise<string> {
  let runId = "";
  await expect
    .poll(
      async () => {
        const resp = await request.post(url("/api/runs"), { data: { yaml, labels } });
        if (resp.ok()) runId = ((await resp.json()) as { run_id: string }).run_id;
        return resp.status();
      },
      { timeout: 60_000, message: "the server accepts the run" },
    )
    .toBe(201);
  return runId;
}

export async function waitFinished(request: APIRequestContext, id: string): Promise<string> {
  let status = "running";
  await expect
    .poll(
      async () => {
        const resp = await request.get(url(`/api/runs/${encodeURIComponent(id)}`));
        status = ((await resp.json()) as { info: { status: string } }).info.status;
        return status;
      },
      { timeout: 150_000, intervals: [500, 1000], message: `run ${id} finishes` },
    )
    .not.toBe("running");
  return status;
}

/** Resolves with what `child` printed on stdout once `pattern` matches it. */
export function printed(child: ChildProcess, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((ok, fail) => {
    let out = "";
    child.on("exit", (code) => fail(new Error(`exited with ${code}: ${out}`)));
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = out.match(pattern);
      if (m) {
        child.removeAllListeners("exit");
        ok(m);
      }
    });
  });
}
