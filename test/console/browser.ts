import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import type { FakeServer } from "../fakes/openai-server.ts";
import { ROOT, type RunningGateway } from "../helpers/binary.ts";
import { CHROMIUM } from "../helpers/servers.ts";

/** Screenshots of each view land here (gitignored), or in PRX_CONSOLE_SHOTS when set. */
export const ARTIFACTS = process.env.PRX_CONSOLE_SHOTS ?? join(ROOT, "test-artifacts", "console");

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

/** Ends a browser suite: the browser, the gateway (SIGTERM, then waits for it), the fake provider, the workspace. */
export async function stopSuite(parts: { browser?: Browser; gateway?: RunningGateway; fake?: FakeServer; cleanup(): void }): Promise<void> {
  await parts.browser?.close();
  parts.gateway?.proc.kill("SIGTERM");
  await parts.gateway?.proc.exited;
  await parts.fake?.stop();
  parts.cleanup();
}
