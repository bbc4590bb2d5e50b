// A run whose process dies without a word (SIGKILL) is not shown as running forever:
// `keystorm run` writes into the server's results folder, is killed mid-fill, and the
// runs table and the live page say `killed`, with how to go on.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { STATE_FILE } from "./global-setup";
import { screenshot, url } from "./support";

const here = dirname(fileURLToPath(import.meta.url));

const WORKLOAD = `name: e2e-killed
target: { endpoint: embedded }
buckets: { names: [e2e-killed] }
objects: { size: 6B }
before:
  - { name: fill, op: put, concurrency: 4, rate: 500, duration: 10m }
`;

/** Starts \`keystorm run\` into the server's results and resolves with the run id once it reports objects. */
function startCliRun(): Promise<{ runId: string; kill: () => Promise<void> }> {
  const { root } = JSON.parse(readFileSync(STATE_FILE, "utf8")) as { root: string };
  const bin = process.env.KEYSTORM_BIN ?? resolve(here, "../../target/debug/keystorm");
  const file = join(root, "e2e-killed.yaml");
  writeFileSync(file, WORKLOAD);
  const child = spawn(bin, ["run", file, "--progress", "plain", "--results", join(root, "results")], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  return new Promise((ok, fail) => {
    let err = "";
    child.on("exit", (code) => fail(new Error(`keystorm run exited with ${code}: ${err}`)));
    child.stderr!.on("data", (d: Buffer) => {
      err += d.toString();
      const id = err.match(/^run (\S+) on /m)?.[1];
      if (id && /\| objects [1-9]/.test(err)) {
        child.removeAllListeners("exit");
        const kill = () =>
          new Promise<void>((gone) => {
            child.on("exit", () => gone());
            child.kill("SIGKILL");
          });
        ok({ runId: id, kill });
      }
    });
  });
}

test("a killed run shows as killed, not running", async ({ page }) => {
  const { runId, kill } = await startCliRun();
  await page.goto(url("/"));
  await expect(page.getByTestId(`run-row-${runId}`).locator(".badge")).toHaveText("running");

  await kill();
  await page.goto(url("/runs"));
  await expect(page.getByTestId(`run-row-${runId}`).locator(".badge")).toHaveText("killed");

  await page.goto(url(`/runs/${runId}/live`));
  await expect(page.getByTestId("run-killed")).toContainText(`keystorm run --resume ${runId}`);
  await expect(page.locator(".title-row .badge")).toHaveText("killed");
  await expect(page.getByTestId("stop-run")).toHaveCount(0);
  await screenshot(page, "killed-run", false);
});
