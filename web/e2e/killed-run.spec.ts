// A run whose process dies without a word (SIGKILL) is not shown as running forever:
// `keystorm run` writes into the server's results folder, is killed mid-fill, and the
// runs table and the live page say `killed`, with how to go on — a resume command for a
// run against a store of its own (`keystorm sim` in its own process), and why not for a
// run whose objects lived in the embedded target of the killed process.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { STATE_FILE } from "./global-setup";
import { printed, screenshot, url } from "./support";

const here = dirname(fileURLToPath(import.meta.url));
const bin = process.env.KEYSTORM_BIN ?? resolve(here, "../../target/debug/keystorm");

function workload(endpoint: string): string {
  return `name: e2e-killed
target: { endpoint: "${endpoint}" }
buckets: { names: [e2e-killed] }
objects: { size: 6B }
before:
  - { name: fill, op: put, workers: 4, rate: 500, duration: 10m }
`;
}


/** `keystorm sim` in its own process: a store that outlives a killed run. */
async function startSim(): Promise<{ endpoint: string; stop: () => void }> {
  const child = spawn(bin, ["sim", "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  const m = await printed(child, /keystorm sim listening on (\S+)/);
  return { endpoint: m[1], stop: () => child.kill("SIGKILL") };
}

/** Starts \`keystorm run\` into the server's results and resolves with the run id once it reports objects. */
function startCliRun(endpoint: string): Promise<{ runId: string; kill: () => Promise<void> }> {
  const { root } = JSON.parse(readFileSync(STATE_FILE, "utf8")) as { root: string };
  const file = join(root, "e2e-killed.yaml");
  writeFileSync(file, workload(endpoint));
  const child = spawn(bin, ["run", file, "--progress", "plain", "--results", join(root, "results")], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, AWS_ACCESS_KEY_ID: "any", AWS_SECRET_ACCESS_KEY: "any" },
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

test("a killed run shows as killed, not running, with the command that resumes it", async ({ page }) => {
  const sim = await startSim();
  try {
    const { runId, kill } = await startCliRun(sim.endpoint);
    await page.goto(url("/"));
    await expect(page.getByTestId(`run-row-${runId}`).locator(".badge")).toHaveText("running");

    await kill();
    await page.goto(url("/runs"));
    await expect(page.getByTestId(`run-row-${runId}`).locator(".badge")).toHaveText("killed");
    // Its throughput cell says why it is empty.
    await expect(page.getByTestId(`run-row-${runId}`).getByTestId("no-headline")).toHaveText("killed before a phase finished");

    await page.goto(url(`/runs/${runId}/live`));
    await expect(page.getByTestId("run-killed")).toContainText(`keystorm run --resume ${runId}`);
    await expect(page.locator(".title-row .badge")).toHaveText("killed");
    await expect(page.getByTestId("stop-run")).toHaveCount(0);
    await screenshot(page, "killed-run");
  } finally {
    sim.stop();
  }
});

test("a killed run on the embedded target says why it cannot be resumed", async ({ page }) => {
  const { runId, kill } = await startCliRun("embedded");
  await kill();
  await page.goto(url(`/runs/${runId}/live`));
  const killed = page.getByTestId("run-killed");
  await expect(killed).toContainText("cannot be resumed");
  await expect(killed).not.toContainText("--resume");
});
