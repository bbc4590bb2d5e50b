// The UI under the Content Security Policy the server sends with every answer: every
// page — runs, a finished run, a live run, compare, the workload editor, agents — loads
// and draws through 127.0.0.1, localhost and [::1] with no console error and no policy
// violation; a run started from the editor of a page reached by a loopback name goes
// live; and a page elsewhere cannot frame the UI.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type Locator, type Page, expect, test } from "@playwright/test";
import { STATE_FILE } from "./global-setup";
import { printed, startRun, url, waitFinished } from "./support";

const here = dirname(fileURLToPath(import.meta.url));

const ROUNDS = `name: csp-rounds
target: { endpoint: embedded }
buckets: { names: [csp-rounds] }
objects: { size: 1KiB }
before:
  - { name: fill, op: put, workers: 2, until_objects: 200 }
rounds:
  count: 2
  phases:
    - { name: read, op: get, workers: 2, operations: 300 }
`;

/** Collects every console error, uncaught error and CSP violation of `page`. */
function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  void page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) =>
      console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI}`),
    );
  });
  return problems;
}

/** `path` of the server under test, reached by `host` instead of 127.0.0.1. */
function via(host: string, path: string): string {
  return url(path).replace("127.0.0.1", host);
}

/** Opens `address` and waits for what shows it drew: an element of that test id, or a
 * locator of the page. */
async function visit(page: Page, address: string, ready: string | ((p: Page) => Locator)): Promise<void> {
  const response = await page.goto(address);
  expect(response?.status(), address).toBe(200);
  const policy = response?.headers()["content-security-policy"] ?? "";
  expect(policy).toContain("default-src 'self'");
  expect(policy).toContain("frame-ancestors 'none'");
  expect(policy).not.toContain("unsafe-inline");
  const shown = typeof ready === "string" ? page.getByTestId(ready) : ready(page);
  await expect(shown.first(), address).toBeVisible();
}

test.describe.serial("the UI under its security policy", () => {
  let first = "";
  let second = "";

  test.beforeAll(async ({ request }) => {
    first = await startRun(request, ROUNDS, { csp: "1" });
    expect(await waitFinished(request, first)).toBe("completed");
    second = await startRun(request, ROUNDS, { csp: "2" });
    expect(await waitFinished(request, second)).toBe("completed");
  });

  for (const host of ["127.0.0.1", "localhost"]) {
    test(`every page draws through ${host} with no error and no violation`, async ({ page }) => {
      const problems = watch(page);
      await visit(page, via(host, "/runs"), "runs-table");
      await visit(page, via(host, `/runs/${encodeURIComponent(first)}`), "run-detail");
      // The charts drew (SVG, styled by the stylesheet and by script, never inline).
      await expect(page.locator(".recharts-surface").first()).toBeVisible();
      await visit(page, via(host, `/compare?runs=${encodeURIComponent(first)},${encodeURIComponent(second)}`), "compare-page");
      await expect(page.locator(".recharts-surface").first()).toBeVisible();
      await visit(page, via(host, "/workloads/demo"), "validation-ok");
      // Agents of earlier tests may be listed, or none.
      await visit(page, via(host, "/agents"), (p) => p.getByTestId("agents-table").or(p.getByText("No agent is connected.")));
      expect(problems).toEqual([]);
    });
  }

  test("a run started from the editor reached by localhost goes live under the policy", async ({ page, request }) => {
    const problems = watch(page);
    await visit(page, via("localhost", "/workloads/demo"), "validation-ok");
    await page.getByTestId("start-run").click();
    await page.waitForURL(/\/runs\/[^/]+\/live$/);
    await expect.poll(async () => Number(await page.getByTestId("live-chart-ops").getAttribute("data-points"))).toBeGreaterThanOrEqual(2);
    await page.getByTestId("stop-run").click();
    const id = decodeURIComponent(page.url().split("/runs/")[1].replace(/\/live$/, ""));
    expect(await waitFinished(request, id)).not.toBe("running");
    expect(problems).toEqual([]);
  });

  test("the UI served on [::1] draws with no error and no violation", async ({ page }) => {
    const state = JSON.parse(readFileSync(STATE_FILE, "utf8")) as { root: string };
    const bin = process.env.KEYSTORM_BIN ?? resolve(here, "../../target/debug/keystorm");
    const child: ChildProcess = spawn(
      bin,
      ["serve", "--bind", "::1", "--port", "0", "--workloads", join(state.root, "workloads"), "--results", join(state.root, "results")],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      const [, address] = await printed(child, /serving (http:\/\/\S+)/);
      expect(address).toContain("[::1]");
      const problems = watch(page);
      await visit(page, `${address}/runs`, "runs-table");
      await visit(page, `${address}/runs/${encodeURIComponent(first)}`, "run-detail");
      await expect(page.locator(".recharts-surface").first()).toBeVisible();
      expect(problems).toEqual([]);
    } finally {
      child.kill();
    }
  });

  test("a page elsewhere cannot frame the UI", async ({ page }) => {
    const refusals: string[] = [];
    page.on("console", (m) => refusals.push(m.text()));
    await page.setContent(`<iframe id="ui" src="${url("/runs")}" width="800" height="600"></iframe>`);
    await expect.poll(() => refusals.some((t) => t.includes("frame-ancestors"))).toBe(true);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(frame).toBeDefined();
    expect(await frame!.locator("[data-testid=runs-table]").count()).toBe(0);
  });
});
