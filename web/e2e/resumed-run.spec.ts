// A run stopped with Ctrl-C and resumed later keeps the time it did not run on its
// record, where people look: the runs list badges it resumed, the run page says so in
// its verdict and its timeline, and the phase's charts shade the pause and break their
// lines there instead of drawing a ramp across it. `keystorm run` writes into the
// server's results folder against `keystorm sim` in its own process (a store that
// outlives the stopped run).
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { STATE_FILE } from "./global-setup";
import { openReport, printed, screenshot, url } from "./support";

const here = dirname(fileURLToPath(import.meta.url));
const bin = process.env.KEYSTORM_BIN ?? resolve(here, "../../target/debug/keystorm");
const env = { ...process.env, AWS_ACCESS_KEY_ID: "any", AWS_SECRET_ACCESS_KEY: "any" };

function workload(endpoint: string): string {
  return `name: e2e-resumed
target: { endpoint: "${endpoint}" }
buckets: { names: [e2e-resumed] }
objects: { size: 6B }
before:
  - { name: fill, op: put, workers: 4, rate: 400, until_objects: 3200 }
`;
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((done) => child.on("exit", (code) => done(code)));
}

test("a resumed run shows its pause as a gap with its reason, in its verdict and timeline", async ({ page, request }) => {
  const sim = spawn(bin, ["sim", "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  const endpoint = (await printed(sim, /keystorm sim listening on (\S+)/))[1];
  try {
    const { root } = JSON.parse(readFileSync(STATE_FILE, "utf8")) as { root: string };
    const file = join(root, "e2e-resumed.yaml");
    writeFileSync(file, workload(endpoint));
    const results = join(root, "results");
    const run = spawn(bin, ["run", file, "--progress", "plain", "--results", results], { stdio: ["ignore", "ignore", "pipe"], env });
    const stopped = exited(run);
    let err = "";
    // Stopped (Ctrl-C) once a few seconds of the fill are recorded.
    // Once: a second Ctrl-C would stop it at once, unsaved, as a kill does.
    const runId = await new Promise<string>((ok) => {
      const watch = (d: Buffer) => {
        err += d.toString();
        const id = err.match(/^run (\S+) on /m)?.[1];
        if (id && /\| objects [1-9][0-9]{3}/.test(err)) {
          run.stderr!.off("data", watch);
          run.stderr!.resume();
          run.kill("SIGINT");
          ok(id);
        }
      };
      run.stderr!.on("data", watch);
    });
    expect(await stopped).toBe(130);
    // The pause itself: the run stays stopped a while.
    await new Promise((r) => setTimeout(r, 3000));
    const resumed = spawn(bin, ["run", "--resume", runId, "--progress", "quiet", "--results", results], { stdio: "ignore", env });
    expect(await exited(resumed)).toBe(0);

    await page.goto(url("/runs"));
    const row = page.getByTestId(`run-row-${runId}`);
    await expect(row.getByTestId("verdict-overall")).toHaveText("completed as asked");
    await expect(row.getByTestId("finding-resumed")).toContainText("resumed");

    await page.goto(url(`/runs/${runId}`));
    await expect(page.getByTestId("verdict-findings")).toContainText("resumed 1 time");
    const pause = page.getByTestId("timeline-pause");
    await expect(pause).toHaveCount(1);
    await expect(pause).toContainText("(interrupted)");
    await expect(pause).toContainText(`--resume ${runId}`);
    await expect(page.getByTestId("timeline-paused")).toContainText("did not run for");
    // The phase's charts shade the pause, labelled, and break their lines over it.
    const chart = page.getByTestId("interval-chart");
    await expect(chart.getByTestId("pause-window")).toHaveCount(1);
    await expect(chart.getByTestId("pause-window")).toHaveAttribute("data-label", "paused: stopped");
    await expect(page.getByTestId("interval-latency-chart").getByTestId("pause-window")).toHaveCount(1);
    // Two pieces of line, not one drawn across the pause.
    await expect(chart.locator('.recharts-line-curve[name="put ops/s"]')).toHaveAttribute("d", /M[^M]+M/);
    // The heatmaps label the empty band: the run did not run, the store did not go quiet.
    await expect(page.getByTestId("phase-heatmap").getByTestId("heatmap-pause-label")).toHaveText("paused: stopped");
    await expect(page.getByTestId("phase-heatmap")).toContainText("shaded: pauses (of the run, or of the shard named)");
    await screenshot(page, "resumed-run");

    // The offline report says the same.
    await openReport(page, request, runId);
    await expect(page.getByTestId("timeline-pause")).toHaveCount(1);
    await expect(page.getByTestId("verdict-findings")).toContainText("resumed 1 time");
  } finally {
    sim.kill("SIGKILL");
  }
});
