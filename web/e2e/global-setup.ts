// Starts `keystorm serve` on a free port with its own workloads (the repository's plus
// the e2e fixtures) and results folders, and waits until its API answers.
import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const STATE_FILE = join(tmpdir(), "keystorm-e2e-state.json");

export default async function globalSetup(): Promise<void> {
  const bin = process.env.KEYSTORM_BIN ?? resolve(here, "../../target/debug/keystorm");
  const root = mkdtempSync(join(tmpdir(), "keystorm-e2e-"));
  const workloads = join(root, "workloads");
  mkdirSync(workloads);
  for (const dir of [resolve(here, "../../workloads"), resolve(here, "fixtures")]) {
    for (const f of readdirSync(dir).filter((f) => f.endsWith(".yaml"))) copyFileSync(join(dir, f), join(workloads, f));
  }
  const child: ChildProcess = spawn(bin, ["serve", "--port", "0", "--workloads", workloads, "--results", join(root, "results")], {
    stdio: ["ignore", "pipe", "inherit"],
    detached: false,
  });
  const url = await new Promise<string>((ok, fail) => {
    let out = "";
    const timer = setTimeout(() => fail(new Error(`keystorm serve printed no address: ${out}`)), 60_000);
    child.on("exit", (code) => fail(new Error(`keystorm serve exited with ${code}: ${out}`)));
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = out.match(/serving (http:\/\/\S+)/);
      if (m) {
        clearTimeout(timer);
        ok(m[1]);
      }
    });
  });
  // Readiness: the API answers (polling with a deadline; not a fixed sleep).
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/api/status`)).ok) break;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error("keystorm serve did not become ready");
    await new Promise((r) => setTimeout(r, 100));
  }
  writeFileSync(STATE_FILE, JSON.stringify({ url, pid: child.pid, root }));
  process.env.KEYSTORM_URL = url;
  child.stdout!.resume();
}
