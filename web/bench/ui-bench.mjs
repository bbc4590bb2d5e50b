// Benchmark (not a test): how fast the run-detail page of a 50-round × 3-phase run
// renders in Chromium, and how quickly the API answers while a max-rate run saturates
// the client. Run through scripts/bench_ui.sh (it builds the release binary first).
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "@playwright/test";

const bin = process.env.KEYSTORM_BIN ?? "target/release/keystorm";
const root = mkdtempSync(join(tmpdir(), "keystorm-ui-bench-"));
mkdirSync(join(root, "workloads"));

const ROUNDS = `name: bench-rounds
target: { endpoint: embedded }
buckets: { names: [bench-rounds] }
objects: { size: 1KiB }
before:
  - { name: fill, op: put, concurrency: 16, until_objects: 2000 }
rounds:
  count: 50
  phases:
    - { name: write, op: put, concurrency: 16, operations: 300 }
    - { name: read, op: get, concurrency: 16, operations: 300 }
    - { name: mixed, mix: { get: 70, put: 20, list: 5, delete: 5 }, concurrency: 16, operations: 300 }
`;
const SATURATE = `name: bench-saturate
target: { endpoint: embedded, embedded: { storage: size-only } }
buckets: { names: [bench-saturate] }
objects: { size: 16B }
before:
  - { name: fill, op: put, concurrency: 64, until_objects: 5000 }
rounds:
  count: 1
  phases:
    - { name: hammer, mix: { get: 70, put: 20, head: 10 }, concurrency: 64, duration: 20s }
`;
writeFileSync(join(root, "workloads", "bench-rounds.yaml"), ROUNDS);
writeFileSync(join(root, "workloads", "bench-saturate.yaml"), SATURATE);

const server = spawn(bin, ["serve", "--port", "0", "--workloads", join(root, "workloads"), "--results", join(root, "results")], {
  stdio: ["ignore", "pipe", "inherit"],
});
const base = await new Promise((ok, fail) => {
  let out = "";
  server.stdout.on("data", (d) => {
    out += d;
    const m = out.match(/serving (http:\/\/\S+)/);
    if (m) ok(m[1]);
  });
  server.on("exit", (c) => fail(new Error(`server exited ${c}`)));
});

const post = (path, body) =>
  fetch(base + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.json());

async function waitIdle() {
  for (;;) {
    const s = await (await fetch(base + "/api/status")).json();
    if (!s.running) return;
    await new Promise((r) => setTimeout(r, 250));
  }
}

function pct(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

try {
  // 1. The 50-round run, then its detail page in Chromium.
  const { run_id } = await post("/api/runs", { workload: "bench-rounds" });
  await waitIdle();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const renders = [];
  for (let i = 0; i < 6; i++) {
    const t0 = Date.now();
    await page.goto(`${base}/runs/${run_id}`);
    await page.locator('[data-testid="rounds-chart"] [data-testid="rounds-point"]').nth(149).waitFor({ state: "attached" });
    await page.getByTestId("rounds-table").waitFor();
    if (i > 0) renders.push(Date.now() - t0); // the first load warms the caches
  }
  renders.sort((a, b) => a - b);
  console.log(`detail page, 50 rounds x 3 phases (150 points, ${50 * 3 + 1} table rows): median ${pct(renders, 50)} ms, max ${renders.at(-1)} ms over ${renders.length} loads`);
  await browser.close();

  // 2. API latency while a max-rate run saturates the client.
  const sat = await post("/api/runs", { workload: "bench-saturate" });
  // Let the fill end and the closed-loop phase start (its 20 s outlast the 15 s below).
  await new Promise((r) => setTimeout(r, 3000));
  const paths = ["/api/status", "/api/runs", `/api/runs/${sat.run_id}`, "/metrics", `/api/runs/${run_id}/intervals?section=round&round=25&phase=read`];
  const lat = [];
  const until = Date.now() + 15000;
  while (Date.now() < until) {
    for (const p of paths) {
      const t0 = performance.now();
      const r = await fetch(base + p);
      await r.arrayBuffer();
      lat.push(performance.now() - t0);
    }
  }
  lat.sort((a, b) => a - b);
  await waitIdle();
  const after = await (await fetch(`${base}/api/runs/${sat.run_id}`)).json();
  const hammer = (after.summary?.rows ?? []).filter((r) => r.phase === "hammer");
  const opsPerSec = hammer.reduce((s, r) => s + r.ops_per_sec, 0);
  console.log(
    `API under load (${lat.length} requests, ${paths.length} endpoints, run at ${Math.round(opsPerSec)} ops/s): p50 ${pct(lat, 50).toFixed(1)} ms, p99 ${pct(lat, 99).toFixed(1)} ms, max ${lat.at(-1).toFixed(1)} ms`,
  );
} finally {
  server.kill("SIGTERM");
}
