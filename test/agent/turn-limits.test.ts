/** The one limit on a user message, at the turn: every entry point (gateway, channels, chat, agent) meets it. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { USER_MESSAGE_MAX_CHARS } from "../../src/agent/limits.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { isPrxError } from "../../src/core/errors.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { runPrx, tempWorkspace, fakeProviderConfig } from "../helpers/binary.ts";

let fake: FakeServer;
let host: AgentHost;
const dir = mkdtempSync(join(tmpdir(), "prx-turn-limits-"));

beforeAll(async () => {
  fake = startFakeOpenAI();
  const config = ConfigSchema.parse({ default_provider: "fake", default_model: "fake-model", providers: { fake: { base_url: fake.url } } });
  host = await openAgentHost({ workspace: dir, config });
});
afterAll(async () => {
  await host.close();
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

test(`a message of ${USER_MESSAGE_MAX_CHARS} characters is a turn; one more is refused before anything is stored`, async () => {
  const at = await host.runTurn({ sessionId: "at-limit", text: "x".repeat(USER_MESSAGE_MAX_CHARS), channel: "test" });
  expect(at.text).toStartWith("echo: xxx");
  let caught: unknown;
  try {
    await host.runTurn({ sessionId: "past-limit", text: "x".repeat(USER_MESSAGE_MAX_CHARS + 1), channel: "test" });
  } catch (error) {
    caught = error;
  }
  expect(isPrxError(caught, "LIMIT_EXCEEDED")).toBe(true);
  expect((caught as Error).message).toBe(`the message is ${USER_MESSAGE_MAX_CHARS + 1} characters, more than ${USER_MESSAGE_MAX_CHARS}`);
  expect(await host.sessions.get("past-limit")).toBeNull();
});

test("prx agent reading stdin meets the same limit, line by line, and goes on", async () => {
  const ws = tempWorkspace(fakeProviderConfig(fake.url));
  try {
    const stdin = `${"y".repeat(USER_MESSAGE_MAX_CHARS + 1)}\nshort one\n`;
    const result = await runPrx(["agent", "-w", ws.dir], { stdin });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`more than ${USER_MESSAGE_MAX_CHARS}`);
    expect(result.stdout).toContain("echo: short one");
  } finally {
    ws.cleanup();
  }
});
