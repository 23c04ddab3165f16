import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startFakeOpenAI, type FakeServer } from "../../fakes/index.ts";
import {
  captureLogs,
  fakeConfig,
  openHost,
  openScenario,
  workspaceWith,
  type HostScenario,
  type OpenedHost,
  MANAGE_TOOL_OPT_IN,
} from "./helpers.ts";

const ADDRESS = "alice.smith@example.com";
const REDACTED = "[email redacted]";

describe("WASM middleware in the agent loop", () => {
  let fake: FakeServer;
  let opened: OpenedHost;
  let scenario: HostScenario;
  beforeAll(async () => void ({ fake, opened } = scenario = await openScenario(["redact-mw"], MANAGE_TOOL_OPT_IN)));
  afterAll(() => scenario.close());

  test("all four stages run: the provider never sees the address and the reply is redacted on the way out", async () => {
    fake.enqueue({ type: "text", text: `write to ${"bob@example.org"} instead` });
    const deltas: string[] = [];
    const result = await opened.host.runTurn({
      sessionId: "s1",
      channel: "test",
      text: `my address is ${ADDRESS}`,
      observer: { onDelta: (d) => deltas.push(d) },
    });
    const sent = JSON.stringify(fake.chatRequests().at(-1)!.body);
    expect(sent).not.toContain(ADDRESS);
    expect(sent).toContain(`my address is ${REDACTED}`);
    expect(result.text).toBe(`write to ${REDACTED} instead`);
    // Deltas are buffered while llm_response/outbound middleware is active: nothing unredacted reaches the UI.
    expect(deltas.join("")).toBe(result.text);
    const history = (await opened.host.sessions.messages("s1"))
      .map((m) => m.content)
      .join("\n");
    expect(history).not.toContain(ADDRESS);
    expect(history).not.toContain("bob@example.org");
    const counters = opened.services.runtime.status.get("redact-mw", "middleware", "redact-email")!;
    expect(counters.invocations).toBe(4);
    expect(counters.errors).toBe(0);
    expect(counters.lastEvent?.name).toBe("outbound");
  });

  test("every provider call runs llm_request and llm_response (a tool round trip)", async () => {
    // A tool round trip: llm_request runs before each provider call, llm_response after each response.
    fake.enqueue(
      { type: "tool_calls", calls: [{ name: "wasm_plugins_manage", arguments: { action: "list" } }] },
      { type: "text", text: "done" },
    );
    const before = opened.services.runtime.status.get("redact-mw", "middleware", "redact-email")!.invocations;
    const result = await opened.host.runTurn({ sessionId: "s2", channel: "test", text: "list plugins" });
    expect(result.text).toBe("done");
    expect(result.toolCalls[0]!.result.success).toBe(true);
    // inbound + 2 x (llm_request + llm_response) + outbound
    expect(opened.services.runtime.status.get("redact-mw", "middleware", "redact-email")!.invocations - before).toBe(6);
  });

  test("active(stage) reflects the current generation", () => {
    const runner = opened.services.middleware;
    for (const stage of ["inbound", "llm_request", "llm_response", "outbound"] as const)
      expect(runner.active!(stage)).toBe(true);
  });
});

describe("a middleware returning garbage", () => {
  test("leaves the turn intact; every failure is counted and logged", async () => {
    const logs = captureLogs();
    const fake = startFakeOpenAI();
    const ws = workspaceWith(["garbage-mw", "redact-mw"], fakeConfig(fake.url));
    const opened = await openHost(ws.root);
    try {
      fake.enqueue({ type: "text", text: `reach me at ${ADDRESS}` });
      const result = await opened.host.runTurn({ sessionId: "g", channel: "test", text: `hello from ${ADDRESS}` });
      // garbage (priority 50) runs first and is ignored; redact still sees and changes the original envelopes.
      expect(JSON.stringify(fake.chatRequests().at(-1)!.body)).not.toContain(ADDRESS);
      expect(result.text).toBe(`reach me at ${REDACTED}`);
      const garbage = opened.services.runtime.status.get("garbage-mw", "middleware", "garbage")!;
      expect(garbage.invocations).toBe(4);
      expect(garbage.errors).toBe(4);
      expect(garbage.extra.failed_invalid_json).toBe(4);
      expect(garbage.lastError?.message).toContain("outbound: invalid_json");
      if (!process.env.PRX_TEST_LOGS)
        expect(logs.some((l) => l.includes("middleware failed; envelope passed on unchanged"))).toBe(true);
    } finally {
      await opened.host.close();
      await fake.stop();
      ws.cleanup();
    }
  });
});
