// Stops the server the global setup started (SIGTERM: it stops any run cleanly).
import { readFileSync, rmSync } from "node:fs";
import { STATE_FILE } from "./global-setup";

export default async function globalTeardown(): Promise<void> {
  const state = JSON.parse(readFileSync(STATE_FILE, "utf8")) as { pid: number; root: string };
  try {
    process.kill(state.pid, "SIGTERM");
  } catch {
    // already gone
  }
  rmSync(STATE_FILE, { force: true });
  if (!process.env.KEEP_E2E_RESULTS) rmSync(state.root, { recursive: true, force: true });
}
