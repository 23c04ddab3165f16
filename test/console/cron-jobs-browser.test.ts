/**
 * The console's "Scheduled jobs" section in Chromium against the built binary's gateway: a job the assistant added
 * is listed with its schedule and where it is delivered; Run now delivers it into its session; Remove takes it away.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser } from "playwright-core";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { fakeProviderConfig, runPrx, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { chromiumAvailable } from "../helpers/servers.ts";
import { waitFor } from "../helpers/wait.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { launchOffline, screenshot } from "./browser.ts";

setDefaultTimeout(60_000);
const enabled = chromiumAvailable();
let fake: FakeServer;
let gateway: RunningGateway;
let browser: Browser;
let ws: ReturnType<typeof tempWorkspace>;

beforeAll(async () => {
  if (!enabled) return;
  fake = startFakeOpenAI();
  ws = tempWorkspace(fakeProviderConfig(fake.url), { prefix: "prx-cron-console-" });
  const job = { action: "add", job: { name: "daily standup", schedule: { kind: "cron", expr: "0 9 * * 1-5", tz: "UTC" }, payload: { kind: "systemEvent", text: "Standup in 5 minutes" } } };
  const added = await runPrx(["agent", "-m", `use tool cron ${JSON.stringify(job)}`, "--session", "console-cron", "-w", ws.dir], { env: { HOME: ws.dir } });
  expect(added.code).toBe(0);
  gateway = await startGatewayBinary(ws.dir);
  browser = await launchOffline();
}, 300_000);

afterAll(async () => {
  if (!enabled) return;
  await browser?.close();
  gateway?.proc.kill("SIGTERM");
  await gateway?.proc.exited;
  await fake?.stop();
  ws.cleanup();
});

describe.skipIf(!enabled)("the console's scheduled jobs", () => {
  test("listed with schedule and destination; Run now delivers into the session; Remove takes the job away", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(gateway.url);
    await page.fill("#pair-code", gateway.code!);
    await page.click("button[type=submit]");
    await page.getByTestId("chat-view").waitFor();
    await page.keyboard.press("3");
    const row = page.getByTestId("cron-jobs").locator("tr[data-cron-job]");
    await row.first().waitFor();
    const text = (await row.first().textContent())!;
    expect(text).toContain("daily standup");
    expect(text).toContain("cron 0 9 * * 1-5 (UTC)");
    expect(text).toContain("remind: Standup in 5 minutes");
    expect(text).toContain("console-cron");
    await screenshot(page, "cron-jobs");

    await row.first().getByTestId("cron-run").click();
    await waitFor(async () => {
      const shown = await runPrx(["sessions", "show", "console-cron", "--json", "-w", ws.dir], { env: { HOME: ws.dir } });
      return shown.stdout.includes("Standup in 5 minutes");
    }, "the manual run's delivery into the session");

    await row.first().getByTestId("cron-remove").click();
    await page.getByTestId("scheduled-jobs").getByText("No scheduled job").waitFor();
    expect(await row.count()).toBe(0);
    const listed = await runPrx(["cron", "list", "--json", "-w", ws.dir], { env: { HOME: ws.dir } });
    expect(JSON.parse(listed.stdout)).toEqual([]);
    await page.close();
  });
});
