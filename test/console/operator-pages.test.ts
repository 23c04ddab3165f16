/**
 * The console's operator pages in a real browser (Debian's Chromium through playwright-core, headless, every
 * non-loopback host unresolvable) against the compiled binary's gateway: pairing, channels, MCP servers, memory,
 * logs, approvals with the audit log, usage and config. Each page is also checked at 390 px (nothing overflows
 * sideways) and screenshotted at 1280 px and 390 px.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { signPrx } from "../../src/channels/signature.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { ensureBinary, fakeProviderConfig, runPrx, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { chromiumAvailable } from "../helpers/servers.ts";
import { waitFor } from "../helpers/wait.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { FIXTURE } from "../mcp/helpers.ts";
import { launchOffline, screenshot, stopSuite } from "./browser.ts";

setDefaultTimeout(60_000);

const enabled = chromiumAvailable();
let fake: FakeServer;
let gateway: RunningGateway;
let browser: Browser;
let cleanup = () => {};
let dir = "";
let token = "";
const failed: string[] = [];

const api = async <T = any>(path: string, init: RequestInit = {}): Promise<T> => {
  const response = await fetch(`${gateway.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...(init.headers as Record<string, string>) },
  });
  return (await response.json()) as T;
};

beforeAll(async () => {
  if (!enabled) return;
  await ensureBinary();
  fake = startFakeOpenAI();
  const extra =
    `[reliability]\nretries = 0\n` +
    // the test polls the API while it waits: no rate limit in its way
    `[gateway]\nrate_limit_per_minute = 100000\nrate_limit_per_token_per_minute = 100000\n` +
    // a webhook channel (unknown senders get a pairing code) and a Telegram channel whose API cannot be reached
    `[channels.hook]\nkind = "webhook"\nenabled = true\nsecret_env = "HOOK_SECRET"\n` +
    `[channels.tg]\nkind = "telegram"\nenabled = true\ntoken_env = "TG_TOKEN"\napi_base_url = "http://127.0.0.1:9"\n` +
    `[mcp.servers.fx]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(FIXTURE)}]\neager = true\n` +
    `[mcp.servers.later]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(FIXTURE)}]\n` +
    `[mcp.servers.broken]\ncommand = "/nonexistent/prx-mcp-server"\n` +
    // a second agent with its own memory, answering what comes through the terminal
    `[agents.work]\nname = "Work"\nbio = "Keeps the office running."\nmemory_scope = "own"\nskills = []\n[[bindings]]\nagent = "work"\nchannel = "cli"\n`;
  // the default autonomy (supervised): an MCP tool's call waits for the owner's approval
  const ws = tempWorkspace(fakeProviderConfig(fake.url, extra, null));
  cleanup = ws.cleanup;
  dir = ws.dir;
  gateway = await startGatewayBinary(ws.dir, { HOOK_SECRET: "hook-secret", TG_TOKEN: "123:abc", PRX_MAX_TOOL_ITERATIONS: "7", PRX_LOG: "info" });
  const created = await runPrx(["gateway", "token", "create", "--name", "pages", "-w", dir]);
  token = created.stdout.trim();
  browser = await launchOffline();
}, 300_000);

afterAll(async () => {
  if (enabled) await stopSuite({ browser, gateway, fake, cleanup });
});

async function signedIn(width = 1280, height = 860): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height } });
  page.on("requestfailed", (r) => failed.push(`${r.url()} ${r.failure()?.errorText ?? ""}`));
  page.on("dialog", (d) => void d.accept());
  await page.goto(gateway.url);
  await page.getByTestId("signin").waitFor();
  await page.fill("#token", token);
  await page.click("button[type=submit]");
  await page.getByTestId("chat-view").waitFor();
  return page;
}

async function open(page: Page, view: string): Promise<void> {
  await page.getByTestId(`nav-${view}`).click();
  await page.getByTestId(`${view}-view`).waitFor();
}

describe.skipIf(!enabled)("the console's operator pages", () => {
  test("the page has a favicon of its own (an inline SVG): no request for /favicon.ico", async () => {
    const page = await browser.newPage();
    const asked: string[] = [];
    page.on("request", (r) => asked.push(new URL(r.url()).pathname));
    await page.goto(gateway.url);
    await page.getByTestId("signin").waitFor();
    expect(await page.locator('link[rel="icon"]').getAttribute("href")).toStartWith("data:image/svg+xml,");
    expect(asked).not.toContain("/favicon.ico");
    await page.close();
  });

  test("pairing: a sender who wrote to a channel waits with their code; approve as owner, then revoke", async () => {
    const body = JSON.stringify({ id: "m-1", sender_id: "alice", text: "hello?" });
    const answer = await fetch(`${gateway.url}/channels/hook/webhook`, {
      method: "POST",
      headers: { "content-type": "application/json", ...signPrx("hook-secret", body, Date.now()) },
      body,
    });
    expect(answer.status).toBe(200);
    const page = await signedIn();
    await open(page, "pairing");
    const waiting = page.getByTestId("pairing-pending").locator('tr[data-sender="alice"]');
    await waiting.waitFor();
    const code = (await api<{ pairings: Array<{ code: string }> }>("/api/channels/pairings")).pairings[0]!.code;
    expect(await waiting.textContent()).toContain(code);
    await screenshot(page, "pairing-1280");
    await waiting.getByRole("checkbox").check();
    await waiting.getByTestId("pairing-approve").click();
    const approved = page.getByTestId("pairing-approved").locator('tr[data-sender="alice"]');
    await approved.waitFor();
    expect(await approved.locator(".badge.ok").textContent()).toBe("owner");
    expect(await page.getByTestId("pairing-pending").textContent()).toContain("No sender waits for pairing.");
    expect((await api("/api/channels/pairings")).pairings).toMatchObject([{ sender_id: "alice", state: "approved", owner: true }]);
    await screenshot(page, "pairing-approved-1280");
    await approved.getByTestId("pairing-revoke").click();
    await page.getByTestId("pairing-approved").filter({ hasText: "No approved sender yet." }).waitFor();
    expect((await api("/api/channels/pairings")).pairings).toEqual([]);
    await page.close();
  });

  test("channels: each one's state and last error; Restart restarts it", async () => {
    const page = await signedIn();
    await open(page, "channels");
    const hook = page.locator('[data-channel="hook"]');
    await hook.locator(".badge.ok", { hasText: "running" }).waitFor();
    const tg = page.locator('[data-channel="tg"]');
    await tg.getByTestId("channel-error").waitFor({ timeout: 30_000 });
    expect(await tg.getByTestId("channel-error").textContent()).toBeTruthy();
    const before = (await api<{ channels: Array<{ name: string; restarts: number }> }>("/api/channels")).channels.find((c) => c.name === "hook")!.restarts;
    await hook.getByTestId("channel-restart").click();
    await page.getByTestId("channel-outcome").filter({ hasText: "hook:" }).waitFor();
    await waitFor(async () => (await api<{ channels: Array<{ name: string; restarts: number; state: string }> }>("/api/channels")).channels.some((c) => c.name === "hook" && c.restarts > before && c.state === "running"));
    await hook.locator(".badge.ok", { hasText: "running" }).waitFor();
    await screenshot(page, "channels-1280");
    await page.close();
  });

  test("MCP servers: state, tools and last error; Restart starts a new process, Start tries a failed server again", async () => {
    const page = await signedIn();
    await open(page, "mcp");
    const fx = page.locator('[data-server="fx"]');
    await fx.locator(".badge.ok", { hasText: "ready" }).waitFor({ timeout: 30_000 }).catch(async () => {
      await page.getByTestId("mcp-refresh").click();
      await fx.locator(".badge.ok", { hasText: "ready" }).waitFor({ timeout: 30_000 });
    });
    await fx.locator("details.tools summary").click();
    expect(await fx.getByTestId("mcp-tools").textContent()).toContain("mcp__fx__echo");
    // Restart: a new process, ready again
    const pid = (await api<{ servers: Array<{ name: string; pid: number }> }>("/api/mcp")).servers.find((s) => s.name === "fx")!.pid;
    await fx.getByTestId("mcp-restart").click();
    await page.getByTestId("mcp-outcome").filter({ hasText: "fx: ready (pid" }).waitFor();
    expect(await page.getByTestId("mcp-outcome").textContent()).not.toContain(`pid ${pid})`);
    expect((await api<{ servers: Array<{ name: string; restarts: number }> }>("/api/mcp")).servers.find((s) => s.name === "fx")!.restarts).toBe(1);
    // started when the tools were first listed
    await page.locator('[data-server="later"]').locator(".badge.ok", { hasText: "ready" }).waitFor();
    const broken = page.locator('[data-server="broken"]');
    await broken.getByTestId("mcp-error").waitFor();
    expect(await broken.locator(".badge.bad").textContent()).toBe("failed");
    await screenshot(page, "mcp-1280");
    // starting it again fails the same way, and the page says why
    expect(await broken.getByTestId("mcp-restart").textContent()).toBe("Start");
    await broken.getByTestId("mcp-restart").click();
    await page.getByTestId("mcp-outcome").locator(".error", { hasText: "/nonexistent/prx-mcp-server" }).waitFor();
    await page.close();
  });

  test("memory: pages of 20, a category, search; edit stores the same key, the private flag, forget", async () => {
    for (let i = 1; i <= 22; i++) await api("/api/memory", { method: "POST", body: JSON.stringify({ key: `note-${String(i).padStart(2, "0")}`, content: `note number ${i}`, category: "note" }) });
    for (const [key, content] of [["coffee", "likes espresso, no sugar"], ["tea", "green tea after lunch"], ["music", "jazz while working"]]) {
      await api("/api/memory", { method: "POST", body: JSON.stringify({ key, content, category: "preference" }) });
    }
    const page = await signedIn();
    await open(page, "memory");
    await page.getByTestId("memory-range").filter({ hasText: "1–20 of 25" }).waitFor();
    expect(await page.getByTestId("memory-entry").count()).toBe(20);
    await screenshot(page, "memory-1280");
    await page.getByTestId("memory-next").click();
    await page.getByTestId("memory-range").filter({ hasText: "21–25 of 25" }).waitFor();
    expect(await page.getByTestId("memory-entry").count()).toBe(5);

    await page.getByTestId("memory-category").fill("preference");
    await page.getByTestId("memory-category").dispatchEvent("change");
    await page.getByTestId("memory-range").filter({ hasText: "1–3 of 3" }).waitFor();

    await page.getByTestId("memory-search").fill("espresso");
    await page.getByTestId("memory-search").press("Enter");
    await page.locator(".pager", { hasText: "found for “espresso” in preference" }).first().waitFor();
    const coffee = page.locator('[data-testid=memory-entry][data-key="coffee"]');
    expect(await page.getByTestId("memory-entry").first().getAttribute("data-key")).toBe("coffee");

    await coffee.getByTestId("memory-edit").click();
    await coffee.getByTestId("memory-edit-content").fill("likes espresso with a little milk");
    await screenshot(page, "memory-edit-1280");
    await coffee.getByTestId("memory-save").click();
    await coffee.filter({ hasText: "with a little milk" }).waitFor();
    expect((await api("/api/memory/entries/coffee")).entry).toMatchObject({ content: "likes espresso with a little milk", category: "preference", private: false });

    await coffee.getByTestId("memory-private").check();
    await coffee.locator(".badge.warn", { hasText: "private" }).waitFor();
    expect((await api("/api/memory/entries/coffee")).entry.private).toBe(true);

    await coffee.getByTestId("memory-forget").click();
    await coffee.waitFor({ state: "detached" });
    expect((await fetch(`${gateway.url}/api/memory/entries/coffee`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(404);

    await page.getByTestId("memory-add").click();
    await page.getByTestId("memory-edit-key").fill("boat");
    await page.getByTestId("memory-edit-content").fill("the boat is called Marlin");
    await page.getByTestId("memory-save").click();
    await page.getByTestId("memory-editor").waitFor({ state: "detached" });
    expect((await api("/api/memory/entries/boat")).entry).toMatchObject({ content: "the boat is called Marlin", category: "core" });
    await page.close();
  });

  test("approvals: a tool call waits on the page; allowed, it runs and the audit log shows it", async () => {
    const page = await signedIn();
    await open(page, "approvals");
    const turn = api("/api/sessions/pages-approval/message", { method: "POST", body: JSON.stringify({ message: 'use tool mcp__fx__echo {"text":"ping"}' }) });
    await waitFor(async () => (await api<{ approvals: unknown[] }>("/api/approvals")).approvals.length === 1);
    await page.getByTestId("approvals-refresh").click();
    const card = page.getByTestId("approval-card");
    await card.waitFor();
    expect(await card.locator(".tool-name").textContent()).toBe("mcp__fx__echo");
    await screenshot(page, "approvals-1280");
    await card.getByTestId("approval-allow").click();
    await page.getByTestId("pending-approvals").filter({ hasText: "No tool call waits for approval." }).waitFor();
    expect(await turn).toMatchObject({ reply: expect.stringContaining("ping") });
    await page.getByTestId("approvals-refresh").click();
    const row = page.getByTestId("audit").locator('tr[data-decision="allow"]').filter({ hasText: "mcp__fx__echo" });
    await row.waitFor();
    await screenshot(page, "audit-1280");
    await page.getByTestId("audit-tool").fill("memory_store");
    await page.getByTestId("audit-tool").press("Enter");
    await row.waitFor({ state: "detached" });
    await page.close();
  });

  test("usage: per day and per session, with the total", async () => {
    const page = await signedIn();
    await open(page, "usage");
    await page.getByTestId("usage-table").locator("tfoot").waitFor();
    await page.getByTestId("usage-group").selectOption("session");
    await page.getByTestId("usage-table").locator('tr[data-key="pages-approval"]').waitFor();
    await screenshot(page, "usage-1280");
    await page.close();
  });

  test("logs: the log file's lines from the chosen level, new ones as they are written", async () => {
    const page = await signedIn();
    await open(page, "logs");
    const lines = page.getByTestId("log-lines");
    await page.getByTestId("log-state").filter({ hasText: "prx.log" }).waitFor();
    expect((await fetch(`${gateway.url}/api/the-log-test`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(404);
    await lines.locator(".line", { hasText: "the-log-test" }).waitFor();
    await screenshot(page, "logs-1280");
    await page.getByTestId("log-level").selectOption("warn");
    await lines.locator(".line").first().waitFor();
    const levels = await lines.locator(".line").evaluateAll((els) => [...new Set(els.map((e) => e.getAttribute("data-level")))]);
    expect(levels.every((l) => l === "warn" || l === "error")).toBe(true);
    await page.close();
  });

  test("config: where each value came from; a secret setting that does not apply is no warning", async () => {
    const page = await signedIn();
    await open(page, "config");
    const origins = page.getByTestId("config-origins");
    await origins.waitFor();
    expect(await origins.locator('tr[data-key="default_provider"]').getAttribute("data-origin")).toBe("file");
    expect(await origins.locator('tr[data-key="agent.max_tool_iterations"]').textContent()).toContain("set by PRX_MAX_TOOL_ITERATIONS");
    // SQLite workspace: [storage] url_env (DATABASE_URL) does not apply
    const storage = page.getByTestId("secrets").locator('li[data-key="storage.url_env"]');
    expect(await storage.locator(".badge").textContent()).toBe("not used");
    expect(await page.locator(".badge.warn", { hasText: "not set" }).count()).toBe(0);
    await screenshot(page, "config-1280");
    await page.close();
  });

  test("agents: each agent with its model, memory, tools, skills and the bindings that route to it", async () => {
    const page = await signedIn();
    await open(page, "agents");
    const work = page.locator('[data-testid=agent][data-agent="work"]');
    await work.waitFor();
    const text = (await work.textContent()) ?? "";
    expect(text).toContain("Keeps the office running.");
    expect(text).toContain("own memory");
    expect(text).toContain('model "agent:work"');
    expect(text).toContain("channel cli");
    expect(text).toContain("skills: none");
    expect(await page.locator('[data-testid=agent][data-agent="main"]').textContent()).toContain("every message no binding sends elsewhere");
    await screenshot(page, "agents-1280");
    await page.close();
  });

  test("at 390 px every page fits: nothing overflows sideways", async () => {
    const page = await signedIn(390, 844);
    for (const view of ["chat", "plugins", "status", "config", "skills", "approvals", "memory", "logs", "channels", "pairing", "mcp", "usage", "agents", "cron"]) {
      await page.goto(`${gateway.url}/#/${view}`);
      await page.getByTestId(`${view}-view`).waitFor();
      await page.waitForTimeout(300);
      expect(await page.evaluate<number>("document.documentElement.scrollWidth"), view).toBeLessThanOrEqual(390);
      await screenshot(page, `${view}-390`);
    }
    // the dark scheme follows the OS
    await page.emulateMedia({ colorScheme: "dark" });
    for (const [view, loaded] of [["channels", '[data-channel="tg"] [data-testid=channel-error]'], ["logs", "[data-testid=log-lines] .line.warn"]] as const) {
      await page.goto(`${gateway.url}/#/${view}`);
      await page.locator(loaded).first().waitFor();
      await screenshot(page, `${view}-390-dark`);
    }
    await page.close();
  });

  test("nothing the pages asked for failed (but what they aborted themselves)", () => {
    expect(failed.filter((f) => !f.includes("net::ERR_ABORTED"))).toEqual([]);
  });
});
