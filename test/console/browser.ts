import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { ROOT } from "../helpers/binary.ts";

/** Debian's Chromium (`apt-get install -y chromium`); .ci/run installs it, so CI always runs the browser tests. */
export const CHROMIUM = process.env.PRX_CHROMIUM ?? "/usr/bin/chromium";
/** Screenshots of each view land here (gitignored). */
export const ARTIFACTS = join(ROOT, "test-artifacts", "console");

/**
 * Whether the browser tests run: always in CI (CI set; a missing Chromium then fails them), elsewhere when Chromium
 * is installed. Outside CI without it they are skipped with a line saying how to enable them.
 */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI) return true; // launching fails, loudly: CI must have it
  console.warn(`skipping the console browser tests: no Chromium at ${CHROMIUM}; run \`apt-get install -y chromium\` (or set PRX_CHROMIUM) to enable them`);
  return false;
}

/**
 * Headless Chromium with every host but 127.0.0.1 unresolvable: the console must load and work with no internet
 * (a CDN asset would fail the page).
 */
export async function launchOffline(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    ],
  });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
