/**
 * The console's Scheduled jobs page in Chromium against the built binary's gateway: the jobs the assistant added
 * with its cron tool are listed with their schedule in words, next and last run, session and agent and where they are
 * delivered; Run now delivers a job into its session and its run shows under Recent runs; Remove asks first, and
 * takes the job away once confirmed. Screenshotted at 1280 px and 390 px (nothing overflows sideways).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { fakeProviderConfig, runPrx, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { chromiumAvailable } from "../helpers/servers.ts";
import { waitFor } from "../helpers/wait.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { launchOffline, screenshot, stopSuite } from "./browser.ts";

setDefaultTimeout(60_000);
const enabled = chromiumAvailable();
let fake: FakeServer;
let gateway: RunningGateway;
let browser: Browser;
let ws: ReturnType<typeof tempWorkspace>;

const prx = (args: string[]) => runPrx([...args, "-w", ws.dir], { env: { HOME: ws.dir } });

async function addJob(session: string, job: Record<string, unknown>): Promise<void> {
  const added = await prx(["agent", "-m", `use tool cron ${JSON.stringify({ action: "add", job })}`, "--session", session]);
  expect(added.code).toBe(0);
}

beforeAll(async () => {
  if (!enabled) return;
  fake = startFakeOpenAI();
  ws = tempWorkspace(fakeProviderConfig(fake.url), { prefix: "prx-cron-console-" });
  await addJob("console-cron", {
    name: "daily standup",
    schedule: { kind: "cron", expr: "0 9 * * 1-5", tz: "UTC" },
    payload: { kind: "systemEvent", text: "Standup in 5 minutes" },
  });
  await addJob("plants", { name: "water the plants", schedule: { kind: "every", every_ms: 6 * 3_600_000 }, payload: { kind: "systemEvent", text: "Water the plants" } });
  gateway = await startGatewayBinary(ws.dir);
  browser = await launchOffline();
}, 300_000);

afterAll(async () => {
  if (enabled) await stopSuite({ browser, gateway, fake, cleanup: () => ws.cleanup() });
});

async function signedIn(width: number, height: number): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height } });
  await page.goto(gateway.url);
  await page.fill("#pair-code", gateway.code!);
  await page.click("button[type=submit]");
  await page.getByTestId("chat-view").waitFor();
  return page;
}

const job = (page: Page, name: string) => page.locator("[data-cron-job]", { hasText: name });

describe.skipIf(!enabled)("the console's Scheduled jobs page", () => {
  let page: Page;

  test("each job: what it does, its schedule in words, next and last run, session and agent, where it is delivered", async () => {
    page = await signedIn(1280, 860);
    await page.getByTestId("nav-cron").click();
    await page.getByTestId("cron-view").waitFor();
    await job(page, "daily standup").waitFor();
    expect(await page.locator("[data-cron-job]").count()).toBe(2);
    const standup = (await job(page, "daily standup").textContent())!;
    expect(standup).toContain("remind: Standup in 5 minutes");
    expect(await job(page, "daily standup").getByTestId("cron-when").textContent()).toBe("Monday to Friday at 09:00 (UTC)");
    expect(standup).toContain("last run: never");
    expect(standup).toContain("never run");
    expect(standup).toContain("session: console-cron · agent main");
    expect(standup).toContain("delivered to: cli");
    expect(standup).not.toContain("next run: not again");
    expect(await job(page, "water the plants").getByTestId("cron-when").textContent()).toBe("every 6 hours");
    await screenshot(page, "cron-1280");
  });

  test("Run now delivers the job into its session; its run shows under Recent runs and as its last run", async () => {
    const standup = job(page, "daily standup");
    await standup.getByTestId("cron-run").click();
    await page.getByTestId("cron-outcome").getByText("daily standup runs now: it is delivered to cli").waitFor();
    await waitFor(async () => (await prx(["sessions", "show", "console-cron", "--json"])).stdout.includes("Standup in 5 minutes"), "the manual run's delivery into the session");
    // The run is recorded once delivered; wait for it where it is kept (polling the page would spend the gateway's
    // per-address rate limit), then one refresh shows it. Open runs stay open through a refresh.
    const id = (await standup.getAttribute("data-cron-job"))!;
    await waitFor(async () => (JSON.parse((await prx(["cron", "runs", id, "--json"])).stdout) as { runs: unknown[] }).runs.length > 0, "the manual run's record");
    await standup.getByTestId("cron-runs").click();
    await page.getByRole("button", { name: "Refresh" }).click();
    await standup.getByText("last run ok").waitFor();
    await standup.locator("[data-run-ok=true]").waitFor();
    expect(await standup.getByTestId("cron-job-runs").textContent()).toContain("(run now)");
    const text = (await standup.textContent())!;
    expect(text).toContain("last run ok");
    expect(text).toMatch(/last run: .* ago \(run now\)Standup in 5 minutes/);
    await screenshot(page, "cron-1280-runs");
  });

  test("at 390 px the page fits: nothing overflows sideways", async () => {
    // the same tab (its token is kept per tab), narrowed
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole("button", { name: "Refresh" }).click();
    await job(page, "water the plants").waitFor();
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await screenshot(page, "cron-390");
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  test("Remove asks first: dismissed, the job stays; confirmed, it is gone from the page and from prx cron list", async () => {
    page.once("dialog", (d) => void d.dismiss());
    await job(page, "water the plants").getByTestId("cron-remove").click();
    expect((JSON.parse((await prx(["cron", "list", "--json"])).stdout) as unknown[]).length).toBe(2);
    expect(await job(page, "water the plants").count()).toBe(1);

    let asked = "";
    page.once("dialog", (d) => {
      asked = d.message();
      void d.accept();
    });
    await job(page, "water the plants").getByTestId("cron-remove").click();
    await page.getByTestId("cron-outcome").getByText("water the plants is removed.").waitFor();
    expect(asked).toBe('Remove the scheduled job "water the plants"? It will not run again.');
    await job(page, "water the plants").waitFor({ state: "detached" });
    const listed = JSON.parse((await prx(["cron", "list", "--json"])).stdout) as Array<{ name: string }>;
    expect(listed.map((j) => j.name)).toEqual(["daily standup"]);
    await page.close();
  });
});
