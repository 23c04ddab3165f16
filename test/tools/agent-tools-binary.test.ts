/**
 * message_send, sessions_history and delegate through the built binary: `prx agent -m` turns against a fake OpenAI
 * server ("use tool <name> <json>" makes the model call a tool) and a fake Telegram on 127.0.0.1.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { SESSION_HELPERS_SHOWN } from "../../src/cli/sessions.ts";
import { openWorkspace } from "../../src/core/workspace.ts";
import { openSqliteStorage } from "../../src/storage/index.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram-server.ts";
import { ensureBinary, fakeProviderConfig, runPrx, startGatewayBinary, tempWorkspace, type RunningGateway } from "../helpers/binary.ts";
import { PNG } from "../helpers/tiny-png.ts";

setDefaultTimeout(60_000);

let fake: FakeServer;
let tg: FakeTelegram;
const cleanups: Array<() => void> = [];
const gateways: RunningGateway[] = [];
beforeAll(async () => {
  await ensureBinary();
  fake = startFakeOpenAI();
  tg = startFakeTelegram();
}, 300_000);
afterAll(async () => {
  for (const gateway of gateways) {
    if (gateway.proc.exitCode === null) gateway.proc.kill("SIGTERM");
    await gateway.proc.exited;
  }
  for (const cleanup of cleanups) cleanup();
  await Promise.all([fake.stop(), tg.stop()]);
});

function workspace(extra: string, level: "supervised" | "full" = "full"): string {
  const ws = tempWorkspace(fakeProviderConfig(fake.url, extra, level));
  cleanups.push(ws.cleanup);
  return ws.dir;
}

/** One `prx agent -m` turn; returns what the tool answered the model (the tool message of the last model call). */
async function toolAnswer(dir: string, message: string, args: string[] = [], env: Record<string, string> = {}): Promise<string> {
  const run = await runPrx(["agent", "--workspace", dir, "-m", message, ...args], { env });
  expect(run.code).toBe(0);
  const messages = (fake.chatRequests().at(-1)!.body as { messages: Array<{ role: string; content: string }> }).messages;
  return String(messages.find((m) => m.role === "tool")!.content);
}

describe("agent tools in the binary", () => {
  test("message_send delivers to the configured Telegram chat through the channel's adapter", async () => {
    const dir = workspace(
      `[channels.telegram]\ntoken_env = "TG_TOKEN"\napi_base_url = "${tg.url}"\n` +
        `[tools.message_send.targets.me]\nchannel = "telegram"\nchat = "777"\n`,
    );
    const content = await toolAnswer(dir, 'use tool message_send {"target":"me","text":"the build is done"}', [], { TG_TOKEN: "123456:TEST-token" });
    expect(content).toBe("sent to me (telegram)");
    expect(tg.sent.map((m) => [m.chat_id, m.visible])).toContainEqual(["777", "the build is done"]);
  });

  test("message_send sends the workspace files its text links after the text; a link to secrets.env sends nothing", async () => {
    const dir = workspace(
      `[channels.telegram]\ntoken_env = "TG_TOKEN"\napi_base_url = "${tg.url}"\n` +
        `[tools.message_send.targets.me]\nchannel = "telegram"\nchat = "779"\n`,
    );
    writeFileSync(join(dir, "chart.png"), PNG);
    writeFileSync(join(dir, "secrets.env"), "KEY=never\n", { mode: 0o600 });
    const args = JSON.stringify({ target: "me", text: "chart: ![c](chart.png), keys: [k](secrets.env)" });
    const content = await toolAnswer(dir, `use tool message_send ${args}`, [], { TG_TOKEN: "123456:TEST-token" });
    expect(content).toBe("sent to me (telegram, 1 file)");
    expect(tg.sent.filter((m) => m.chat_id === "779").map((m) => m.visible)).toEqual(["chart: ![c](chart.png), keys: [k](secrets.env)"]);
    expect(tg.uploads.filter((u) => u.chat_id === "779").map((u) => [u.method, u.name, u.bytes])).toEqual([["sendPhoto", "chart.png", PNG]]);
  });

  test("through the gateway, with the Telegram channel's own process running, message_send reaches the chat", async () => {
    const dir = workspace(
      `[channels.telegram]\nenabled = true\ntoken_env = "TG_TOKEN"\napi_base_url = "${tg.url}"\npoll_timeout_s = 1\ndm_policy = "open"\n` +
        `[tools.message_send.targets.me]\nchannel = "telegram"\nchat = "888"\n`,
    );
    const gateway = await startGatewayBinary(dir, { TG_TOKEN: "123456:TEST-token" });
    gateways.push(gateway);
    const paired = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
    const { token } = (await paired.json()) as { token: string };
    const answer = await fetch(`${gateway.url}/api/sessions/from-api/message`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ message: 'use tool message_send {"target":"me","text":"deployed from the gateway"}' }),
    });
    // a failure shows the gateway's answer
    expect({ status: answer.status, error: answer.ok ? null : await answer.text() }).toEqual({ status: 200, error: null });
    expect(JSON.stringify(await answer.json())).toContain("tool said: sent to me (telegram)");
    expect(tg.sent.map((m) => [m.chat_id, m.visible])).toContainEqual(["888", "deployed from the gateway"]);
  });

  test("through the gateway, a first session waits for another process's write to the workspace database", async () => {
    const dir = workspace("");
    const gateway = await startGatewayBinary(dir);
    gateways.push(gateway);
    const paired = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
    const { token } = (await paired.json()) as { token: string };
    const auth = { authorization: `Bearer ${token}` };
    // the memory tables are made first: the turn's first write is then its session's
    expect((await fetch(`${gateway.url}/api/memory`, { headers: auth })).status).toBe(200);
    // another process (a channel's, starting) holds the write lock while the turn begins, and commits on its own
    const other = new Database(openWorkspace(dir).dbPath);
    other.exec("BEGIN IMMEDIATE");
    other.exec("CREATE TABLE elsewhere (n INTEGER)");
    const committed = new Promise<void>((resolve) =>
      setTimeout(() => {
        other.exec("COMMIT");
        other.close();
        resolve();
      }, 500),
    );
    const answer = await fetch(`${gateway.url}/api/sessions/first/message`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ message: "hello" }),
    });
    await committed;
    expect({ status: answer.status, error: answer.ok ? null : await answer.text() }).toEqual({ status: 200, error: null });
  });

  test("message_send is a message-class tool: supervised asks, and with no one to ask it is refused", async () => {
    const dir = workspace(`[tools.message_send.targets.desk]\nsession = "desk"\n`, "supervised");
    const content = await toolAnswer(dir, 'use tool message_send {"target":"desk","text":"hi"}');
    expect(content).toContain("error: tool message_send needs the owner's approval");
  });

  test("sessions_history reads another session", async () => {
    const dir = workspace("");
    const first = await runPrx(["agent", "--workspace", dir, "--session", "earlier", "-m", "the launch code word is walrus"]);
    expect(first.code).toBe(0);
    const content = await toolAnswer(dir, 'use tool sessions_history {"session_id":"earlier"}', ["--session", "now"]);
    const history = JSON.parse(content) as { session_id: string; messages: Array<{ role: string; content: string }> };
    expect(history.session_id).toBe("earlier");
    expect(history.messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "the launch code word is walrus"],
      ["assistant", "echo: the launch code word is walrus"],
    ]);
  });

  test("delegate returns the helper's answer and keeps its messages as a child session", async () => {
    const dir = workspace("");
    const content = await toolAnswer(dir, 'use tool delegate {"task":"count to three"}', ["--session", "parent"]);
    const answer = JSON.parse(content) as { session_id: string; answer: string };
    expect(answer.answer).toBe("echo: count to three");
    const shown = await runPrx(["sessions", "show", answer.session_id, "--json", "--workspace", dir]);
    expect(shown.code).toBe(0);
    const child = JSON.parse(shown.stdout) as { parent: unknown; messages: Array<{ content: string }> };
    expect(child.parent).toEqual({ session_id: "parent", depth: 1 });
    expect(child.messages.map((m) => m.content)).toEqual(["count to three", "echo: count to three"]);
    const parent = await runPrx(["sessions", "show", "parent", "--workspace", dir]);
    expect(parent.stdout).toContain(`helpers: ${answer.session_id}`);
  });

  test(`prx sessions show names ${SESSION_HELPERS_SHOWN} helpers of a session, not one more`, async () => {
    const dir = workspace("");
    const storage = openSqliteStorage(openWorkspace(dir).dbPath);
    storage.sessions.append("busy", [{ role: "user", content: "hi" }], { channel: "cli" });
    for (let i = 0; i <= SESSION_HELPERS_SHOWN; i++) {
      storage.sessionLinks.link({ childId: `delegate_${String(i).padStart(4, "0")}`, parentId: "busy", depth: 1, createdAt: i });
    }
    await storage.close();
    const shown = await runPrx(["sessions", "show", "busy", "--json", "--workspace", dir]);
    const helpers = (JSON.parse(shown.stdout) as { helpers: string[] }).helpers;
    expect(helpers.length).toBe(SESSION_HELPERS_SHOWN);
    expect(helpers.at(-1)).toBe(`delegate_${String(SESSION_HELPERS_SHOWN - 1).padStart(4, "0")}`);
  });
});
