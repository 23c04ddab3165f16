/**
 * The web console in a real browser (Debian's Chromium through playwright-core, headless, every non-loopback host
 * unresolvable) against the compiled binary's gateway with the fake provider and the example remote plugin.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { SUMMARY_INSTRUCTIONS } from "../../src/agent/compaction.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { ensureBinary, fakeProviderConfig, ROOT, runPrx, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { chromiumAvailable } from "../helpers/servers.ts";
import { launchOffline, screenshot, stopSuite } from "./browser.ts";

setDefaultTimeout(60_000);

const enabled = chromiumAvailable();
let fake: FakeServer;
let gateway: RunningGateway;
let browser: Browser;
let cleanup = () => {};
let dir = "";
/** Every URL the pages asked for, and the ones that failed. */
const requested: string[] = [];
const failed: string[] = [];

async function newPage(width = 1280, height = 860): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height } });
  page.on("request", (r) => requested.push(r.url()));
  page.on("requestfailed", (r) => failed.push(`${r.url()} ${r.failure()?.errorText ?? ""}`));
  page.on("dialog", (d) => void d.accept());
  return page;
}

beforeAll(async () => {
  if (!enabled) return;
  await ensureBinary();
  fake = startFakeOpenAI();
  // the default autonomy (supervised): the plugin tool's call waits for the approval card
  const ws = tempWorkspace(fakeProviderConfig(fake.url, `models = ["fake-model", "fake-big"]\n[reliability]\nretries = 0\n`, null));
  cleanup = ws.cleanup;
  dir = ws.dir;
  mkdirSync(join(ws.dir, "plugins"));
  cpSync(join(ROOT, "plugins", "example-remote"), join(ws.dir, "plugins", "example-remote"), { recursive: true });
  // a plugin that fails admission: the console shows its error with the file and line to fix
  mkdirSync(join(ws.dir, "plugins", "broken"));
  writeFileSync(join(ws.dir, "plugins", "broken", "plugin.toml"), '[plugin]\nname = "broken"\nversion = \n');
  gateway = await startGatewayBinary(ws.dir);
  browser = await launchOffline();
}, 300_000);

afterAll(async () => {
  if (enabled) await stopSuite({ browser, gateway, fake, cleanup });
});

/** Signs in with the pairing code the gateway printed; returns the token the page keeps. */
async function pair(page: Page): Promise<string> {
  await page.goto(gateway.url);
  await page.getByTestId("signin").waitFor();
  await screenshot(page, "1-sign-in");
  await page.fill("#pair-code", gateway.code!);
  await page.click("button[type=submit]");
  await page.getByTestId("chat-view").waitFor();
  return (await page.evaluate(() => sessionStorage.getItem("prx.token")))!;
}

/** A new page signed in with a token created for it (named `name`), on the chat view. */
async function signedIn(name: string): Promise<Page> {
  const created = await runPrx(["gateway", "token", "create", "--name", name, "-w", dir]);
  expect(created.code).toBe(0);
  const page = await newPage();
  await page.goto(gateway.url);
  await page.getByTestId("signin").waitFor();
  await page.fill("#token", created.stdout.trim());
  await page.click("button[type=submit]");
  await page.getByTestId("chat-view").waitFor();
  return page;
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByTestId("composer").fill(text);
  await page.getByTestId("composer").press("Enter");
}

describe.skipIf(!enabled)("the web console", () => {
  test("pair, chat with streaming, a tool card, stop mid-stream, reload a plugin and see its counters, sign out", async () => {
    expect(gateway.code).toMatch(/^[A-Z2-9]{8}$/);
    const page = await newPage();
    const token = await pair(page);
    expect(token).toStartWith("prx_");
    expect(await page.evaluate(() => localStorage.getItem("prx.token"))).toBeNull(); // not remembered

    // streamed reply: the text arrives in pieces and ends as the fake's whole answer
    const words = Array.from({ length: 12 }, (_, i) => `word${i}`).join(" ");
    fake.enqueue({ type: "text", text: `**Streaming** reply: ${words}\n\n\`\`\`ts\nconst answer = 42;\n\`\`\``, chunkDelayMs: 40 });
    await send(page, "stream to me");
    await page.getByTestId("streaming-reply").waitFor();
    const reply = page.locator(".msg.assistant").last();
    await page.getByTestId("send").waitFor();
    expect(await reply.locator("strong").textContent()).toBe("Streaming");
    expect(await reply.locator("pre.code .hl-k").first().textContent()).toBe("const");
    expect(await reply.textContent()).toContain("word11");

    // a tool call of the remote plugin, as a card with its arguments and result
    await send(page, 'use tool REMEMBER_NOTE {"text":"the milk is in the fridge"}');
    const card = page.getByTestId("tool-card").last();
    await card.waitFor();
    // the plugin's tool declares no risk class: under the default supervised level it waits for the owner's approval
    const approval = page.getByTestId("approval-card").last();
    await approval.waitFor();
    expect(await approval.locator(".tool-name").textContent()).toBe("REMEMBER_NOTE");
    expect(await approval.locator(".tool-args").textContent()).toContain("the milk is in the fridge");
    await screenshot(page, "2-approval");
    await approval.getByTestId("approval-allow").click();
    await approval.filter({ hasText: "allowed" }).waitFor();
    await page.getByTestId("send").waitFor();
    await card.locator("summary").click();
    expect(await card.locator(".tool-name").textContent()).toBe("REMEMBER_NOTE");
    expect(await card.locator(".tool-args").textContent()).toContain("the milk is in the fridge");
    await card.locator(".tool-result").waitFor();
    // what the session spent so far: its three model calls, as the fake reported them
    await page.getByTestId("session-usage").filter({ hasText: "This session:" }).waitFor();
    const spentText = (await page.getByTestId("session-usage").textContent())!;
    const active = await page.locator(".sessions li.active").getAttribute("data-id");
    const detail = (await (await fetch(`${gateway.url}/api/sessions/${active}`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
      usage: { input_tokens: number; calls: number };
    };
    expect(detail.usage.calls).toBe(3);
    expect(spentText).toContain(`${detail.usage.input_tokens.toLocaleString("en-US")} tokens in`);
    await screenshot(page, "2-chat");

    // stop mid-stream: the reply stops growing, the turn is cancelled on the gateway
    const long = Array.from({ length: 400 }, (_, i) => `slow${i}`).join(" ");
    fake.enqueue({ type: "text", text: long, chunkDelayMs: 60 });
    await send(page, "a long answer please");
    await page.getByTestId("streaming-reply").filter({ hasText: "slow3" }).waitFor();
    await page.getByTestId("stop").click();
    await page.getByTestId("stopped").waitFor();
    await page.getByTestId("send").waitFor();
    const session = await page.locator(".sessions li.active").getAttribute("data-id");
    expect(session).toBeTruthy();
    const stored = await (await fetch(`${gateway.url}/api/sessions/${session}/messages`, { headers: { authorization: `Bearer ${token}` } })).json() as { messages: Array<{ content: string }> };
    const last = stored.messages.at(-1)!.content;
    expect(last).toContain("slow0");
    expect(last).not.toContain("slow399");

    // plugins: the tool's counter, a reload with its outcome, the counter still there
    await page.keyboard.press("2");
    const plugin = page.locator('[data-plugin="example-remote"]');
    await plugin.waitFor();
    const calls = plugin.locator('tr[data-capability="REMEMBER_NOTE"] [data-testid=invocations]');
    expect(Number(await calls.textContent())).toBeGreaterThanOrEqual(1);
    await plugin.getByTestId("reload-one").click();
    await page.locator('[data-testid=reload-outcome] li[data-outcome]').first().waitFor();
    expect(await page.getByTestId("reload-outcome").textContent()).toContain("example-remote: rebuilt");
    expect(Number(await calls.textContent())).toBeGreaterThanOrEqual(1);
    const broken = page.locator('[data-plugin="broken"]');
    expect(await broken.getByTestId("error-place").textContent()).toEndWith("plugins/broken/plugin.toml:3:11");
    expect(await broken.getByTestId("plugin-error").textContent()).toContain("PLUGIN_MANIFEST: ");
    expect(await broken.locator(".hint").textContent()).toContain("prx plugins validate");
    // a probe from the form, on the live generation
    await page.getByTestId("probe-plugin").selectOption("example-remote");
    await page.getByTestId("probe-action").selectOption("status");
    await page.getByRole("button", { name: "Run probe" }).click();
    await page.getByTestId("probe-out").filter({ hasText: "example-remote" }).waitFor();
    await screenshot(page, "3-plugins");

    await page.keyboard.press("3");
    await page.getByTestId("health").locator(".badge.ok").first().waitFor();
    await page.getByTestId("providers").locator("li").first().waitFor();
    // the last 14 days as bars, and their total
    await page.getByTestId("usage-total").waitFor();
    expect(await page.locator(".usage-chart .bar").count()).toBe(14);
    expect(await page.getByTestId("usage-total").textContent()).toContain("tokens in");
    await screenshot(page, "4-status");
    // the audit log shows the plugin tool's call with the console's approval
    await page.keyboard.press("6");
    const audited = page.getByTestId("audit").locator('tr[data-decision="allow"]').filter({ hasText: "REMEMBER_NOTE" }).first();
    await audited.waitFor();
    expect(await audited.textContent()).toContain("api");
    expect(await page.getByTestId("pending-approvals").textContent()).toContain("No tool call waits for approval.");
    await page.keyboard.press("4");
    await page.getByTestId("validation").waitFor();
    expect(await page.getByTestId("config-json").textContent()).toContain('"default_provider": "fake"');
    await screenshot(page, "5-config");

    // sign out revokes the token
    await page.getByTestId("sign-out").click();
    await page.getByTestId("signin").waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem("prx.token"))).toBeNull();
    const after = await fetch(`${gateway.url}/api/status`, { headers: { authorization: `Bearer ${token}` } });
    expect(after.status).toBe(401);
    await page.close();
  });

  test("the page loaded with every non-loopback host unreachable: nothing was asked of another host, nothing failed", () => {
    const origin = new URL(gateway.url).origin;
    expect(requested.length).toBeGreaterThan(0);
    expect(requested.filter((url) => !url.startsWith(origin))).toEqual([]);
    // requests the console aborted itself (the stopped reply, the status stream on leaving) are not failures
    expect(failed.filter((f) => !f.includes("net::ERR_ABORTED"))).toEqual([]);
  });

  test("/compact: the conversation so far becomes the session summary, shown where it stands; the next turn carries it", async () => {
    const page = await signedIn("compact");
    fake.script((r) => {
      const body = r.body as { messages: Array<{ content: string | null }> };
      return body.messages[0]?.content === SUMMARY_INSTRUCTIONS ? { type: "text", text: "The user said the boat is called Marlin." } : undefined;
    });
    try {
      await send(page, "my boat is called Marlin");
      await page.getByTestId("send").waitFor();
      await page.locator(".msg.assistant", { hasText: "echo: my boat is called Marlin" }).waitFor();
      await send(page, "/compact");
      await page.getByTestId("compacted").waitFor();
      expect(await page.getByTestId("compacted").textContent()).toBe("Compacted 2 messages into the session summary.");
      const note = page.getByTestId("session-summary");
      expect(await note.count()).toBe(1);
      expect(await note.locator("summary").textContent()).toContain("Summary of messages 1-2 (by fake-model)");
      // every message is still shown, the summary after the last one it covers
      expect(await page.locator(".messages > *").evaluateAll((els) => els.map((e) => e.getAttribute("data-role") ?? e.getAttribute("data-testid")))).toEqual([
        "user",
        "assistant",
        "session-summary",
        "compacted",
      ]);
      await note.locator("summary").click();
      expect(await note.locator(".md").textContent()).toBe("The user said the boat is called Marlin.");
      await screenshot(page, "8-compacted");

      const before = fake.chatRequests().length;
      await send(page, "what is my boat called?");
      await page.locator(".msg.assistant", { hasText: "echo: what is my boat called?" }).waitFor();
      const sent = fake.chatRequests().slice(before).at(-1)!.body as { messages: Array<{ role: string; content: string }> };
      expect(sent.messages[0]!.content).toContain("The user said the boat is called Marlin.");
      expect(sent.messages.slice(1).map((m) => m.content)).toEqual(["what is my boat called?"]);
      // opened again, the summary stands between the messages it covers and the later ones
      const session = (await page.locator(".sessions li.active").getAttribute("data-id"))!;
      await page.reload();
      await page.getByTestId("chat-view").waitFor();
      await page.locator(`.sessions li[data-id="${session}"]`).click();
      await page.getByTestId("session-summary").waitFor();
      expect(await page.locator(".messages > *").evaluateAll((els) => els.map((e) => e.getAttribute("data-role") ?? e.getAttribute("data-testid")))).toEqual([
        "user",
        "assistant",
        "session-summary",
        "user",
        "assistant",
      ]);
    } finally {
      fake.script(undefined);
      await page.close();
    }
  });

  test("a config.toml edit the gateway refuses shows a banner over every view until the file is fixed", async () => {
    const page = await signedIn("banner");
    const path = join(dir, "config.toml");
    const good = readFileSync(path, "utf8");
    writeFileSync(path, `${good}\n[agent]\ntemperature = "warm"\n`);
    const banner = page.getByTestId("config-banner");
    await banner.getByText("config.toml not applied").waitFor();
    expect(await banner.textContent()).toContain(`${path}:${good.split("\n").length + 2}`);
    await screenshot(page, "8-config-refused-banner");
    writeFileSync(path, good);
    await banner.waitFor({ state: "hidden" });
    await page.close();
  });

  test("readable at 360 px: nothing overflows sideways in any view", async () => {
    const created = await runPrx(["gateway", "token", "create", "--name", "narrow", "-w", dir]);
    expect(created.code).toBe(0);
    const page = await newPage(360, 740);
    await page.goto(gateway.url);
    await page.getByTestId("signin").waitFor();
    await screenshot(page, "6-sign-in-360px");
    await page.fill("#token", created.stdout.trim());
    await page.click("button[type=submit]");
    for (const [key, view] of [["1", "chat-view"], ["2", "plugins-view"], ["3", "status-view"], ["4", "config-view"], ["5", "skills-view"], ["6", "approvals-view"], ["7", "memory-view"], ["8", "logs-view"], ["9", "channels-view"], ["0", "pairing-view"]] as const) {
      await page.keyboard.press(key);
      await page.getByTestId(view).waitFor();
      expect(await page.evaluate<number>("document.documentElement.scrollWidth"), view).toBeLessThanOrEqual(360);
      await screenshot(page, `7-${view}-360px`);
    }
    await page.close();
  });
});
