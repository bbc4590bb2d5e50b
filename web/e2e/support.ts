// Helpers for the browser tests: the server's address and screenshots of each page.
import type { Page } from "@playwright/test";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { STATE_FILE } from "./global-setup";

const here = dirname(fileURLToPath(import.meta.url));

export function url(path: string): string {
  const base = process.env.KEYSTORM_URL ?? (JSON.parse(readFileSync(STATE_FILE, "utf8")) as { url: string }).url;
  return base + path;
}

/** Saves a full-page screenshot to e2e/screenshots/NAME.png (and to docs/screenshots). */
export async function screenshot(page: Page, name: string, alsoDocs = false): Promise<void> {
  const dir = join(here, "screenshots");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  if (alsoDocs) {
    const docs = resolve(here, "../../docs/screenshots");
    mkdirSync(docs, { recursive: true });
    copyFileSync(file, join(docs, `${name}.png`));
  }
}
