/**
 * Traces of an agent host with [telemetry] on, against the fake OTLP receiver: plugin calls are spans of the turn
 * that made them, a channel message is one trace (its turn and its delivery), and a receiver that never answers
 * never holds a turn up.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost } from "../../src/agent/index.ts";
import { SUMMARY_INSTRUCTIONS } from "../../src/agent/compaction.ts";
import { ChannelRunner } from "../../src/channels/runner.ts";
import { ChannelStore } from "../../src/channels/store.ts";
import type { Channel } from "../../src/channels/types.ts";
import { ChannelConfigSchema, ConfigSchema } from "../../src/config/schema.ts";
import { createLogger } from "../../src/core/logger.ts";
import { SqliteChannelStateStore, SqlitePairingStore } from "../../src/storage/index.ts";
import { NOOP_TRACER } from "../../src/telemetry/index.ts";
import { startFakeOpenAI } from "../fakes/openai-server.ts";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../fakes/otlp-receiver.ts";
import { waitFor } from "../helpers/wait.ts";
import { openScenario, type HostScenario } from "../plugins/capabilities/helpers.ts";
import { EXAMPLE_DIR, fakeConfig as remoteConfig, openHost as openRemoteHost, workspaceWith as remoteWorkspace } from "../plugins/remote-integration/workspace.ts";

let receiver: OtlpReceiver;
const dirs: string[] = [];
beforeAll(() => {
  receiver = startOtlpReceiver();
});
afterAll(async () => {
  await receiver.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "prx-otlp-traces-"));
  dirs.push(dir);
  return dir;
};

/** A host on the offline provider exporting to `endpoint`. */
const offlineHost = (endpoint: string) =>
  openAgentHost({ workspace: tempDir(), config: ConfigSchema.parse({ telemetry: { otlp_endpoint: endpoint } }), env: {} });

/** The spans of the trace that holds a span named `name` with attribute `key` = `value`, once `count` have arrived. */
async function traceOf(name: string, key: string, value: unknown, count: number): Promise<ReceivedSpan[]> {
  return waitFor(() => {
    const anchor = receiver.spans().find((span) => span.name === name && span.attributes[key] === value);
    const spans = anchor ? receiver.spans().filter((span) => span.traceId === anchor.traceId) : [];
    return spans.length >= count ? spans : null;
  }, `${count} spans of the trace of ${name}`);
}

describe("plugin calls", () => {
  let scenario: HostScenario;
  beforeAll(async () => {
    scenario = await openScenario(["redact-mw"], `[telemetry]\notlp_endpoint = "${receiver.url}"\n`);
  });
  afterAll(() => scenario.close());

  test("each middleware call of a turn is a span of that turn, naming the plugin, its capability and generation", async () => {
    const { host } = scenario.opened;
    scenario.fake.enqueue({ type: "text", text: "fine" });
    await host.runTurn({ sessionId: "plugin-spans", channel: "test", text: "hello" });
    // inbound, llm_request, llm_response, outbound, besides the turn and its model call
    const spans = await traceOf("invoke_agent main", "prx.session.id", "plugin-spans", 6);
    const turn = spans.find((span) => span.name === "invoke_agent main")!;
    const plugin = spans.filter((span) => span.name === "prx.plugin redact-mw/redact-email");
    expect(plugin).toHaveLength(4);
    for (const span of plugin) {
      expect(span.parentSpanId).toBe(turn.spanId);
      expect(span.attributes).toMatchObject({
        "prx.plugin": "redact-mw",
        "prx.plugin.capability": "redact-email",
        "prx.plugin.capability_type": "middleware",
        "prx.plugin.function": "process",
      });
      expect(span.attributes["prx.plugin.generation"]).toBeGreaterThanOrEqual(1);
    }
  });
});

describe("remote plugins", () => {
  test("an action called as a tool is a span of the tool call", async () => {
    const fake = startFakeOpenAI();
    const ws = remoteWorkspace([EXAMPLE_DIR], `${remoteConfig(fake.url)}[telemetry]\notlp_endpoint = "${receiver.url}"\n`);
    const { host } = await openRemoteHost(ws.root);
    try {
      const result = await host.runTurn({ sessionId: "remote-spans", text: 'use tool REMEMBER_NOTE {"text":"buy milk"}', channel: "test" });
      expect(result.toolCalls.map((c) => c.result.success)).toEqual([true]);
      const spans = await traceOf("invoke_agent main", "prx.session.id", "remote-spans", 5);
      const tool = spans.find((span) => span.name === "execute_tool REMEMBER_NOTE")!;
      const plugin = spans.find((span) => span.name === "prx.plugin example-remote/REMEMBER_NOTE")!;
      expect(plugin.parentSpanId).toBe(tool.spanId);
      expect(plugin.attributes).toMatchObject({ "prx.plugin": "example-remote", "prx.plugin.capability_type": "tool", "prx.plugin.function": "execute" });
    } finally {
      await host.close();
      ws.cleanup();
      await fake.stop();
    }
  });
});

describe("channel messages", () => {
  test("one trace per message: the turn and the delivery are children of the message's span", async () => {
    const host = await offlineHost(receiver.url);
    try {
      const sent: string[] = [];
      const channel: Channel = {
        name: "t",
        kind: "webhook",
        capabilities: { edit: false, threads: false, maxMessageLength: 4000, typing: false },
        start: async () => {},
        send: async (reply) => (sent.push(reply.text), "id"),
        typing: async () => {},
        health: () => ({ ok: true, detail: "" }),
        stop: async () => {},
      };
      const db = new Database(":memory:");
      const runner = new ChannelRunner({
        channel,
        host,
        store: new ChannelStore(new SqliteChannelStateStore(db), "t"),
        pairings: new SqlitePairingStore(db),
        config: ChannelConfigSchema.parse({ dm_policy: "open" }),
        logger: createLogger("test"),
      });
      await runner.onMessage({
        id: "m-traced",
        channel: "t",
        chatId: "chat-7",
        chatKind: "dm",
        threadId: null,
        senderId: "u",
        senderDisplay: "u",
        senderIsBot: false,
        text: "hi",
        replyTo: null,
        mentioned: false,
        timestamp: 0,
      });
      await runner.idle();
      expect(sent).toHaveLength(1);
      const spans = await traceOf("prx.channel t", "messaging.message.id", "m-traced", 4);
      const root = spans.find((span) => span.name === "prx.channel t")!;
      expect(root.parentSpanId).toBeNull();
      expect(root.attributes).toMatchObject({ "prx.channel": "t", "prx.channel.chat_id": "chat-7" });
      const turn = spans.find((span) => span.name === "invoke_agent main")!;
      expect(turn.parentSpanId).toBe(root.spanId);
      expect(turn.attributes["prx.channel"]).toBe("t");
      const delivery = spans.find((span) => span.name === "deliver t")!;
      expect(delivery.parentSpanId).toBe(root.spanId);
      expect(delivery.kind).toBe(4);
      expect(delivery.attributes).toMatchObject({ "prx.channel": "t", "prx.channel.parts": 1 });
      expect(delivery.startNs).toBeGreaterThanOrEqual(turn.endNs);
    } finally {
      await host.close();
    }
  });
});

describe("compaction", () => {
  test("the summariser's model call is a chat span of the turn that compacted", async () => {
    const fake = startFakeOpenAI();
    fake.script((r) => ((r.body as { messages: Array<{ content: unknown }> }).messages[0]?.content === SUMMARY_INSTRUCTIONS ? { type: "text", text: "SUMMARY" } : undefined));
    const config = ConfigSchema.parse({
      default_provider: "fake",
      default_model: "small",
      providers: { fake: { base_url: fake.url, model_info: { small: { context_window: 2048, max_output_tokens: 256 } } } },
      reliability: { retries: 0 },
      memory: { auto_recall: false },
      telemetry: { otlp_endpoint: receiver.url },
    });
    const host = await openAgentHost({ workspace: tempDir(), config, env: {} });
    try {
      for (let i = 0; i < 14; i++) await host.runTurn({ sessionId: "compacted", text: `turn ${i} ${"lorem ".repeat(40)}`, channel: "test" });
      expect(await host.sessions.summary("compacted")).not.toBeNull();
      const [turn, chats] = await waitFor(() => {
        const spans = receiver.spans();
        for (const turn of spans.filter((span) => span.name === "invoke_agent main" && span.attributes["prx.session.id"] === "compacted")) {
          const chats = spans.filter((span) => span.parentSpanId === turn.spanId && span.name === "chat small");
          if (chats.length === 2) return [turn, chats] as const;
        }
        return null;
      }, "a turn with the summariser's call and its own");
      const summariser = chats.find((span) => span.attributes["gen_ai.request.temperature"] === 0)!;
      expect(summariser.attributes).toMatchObject({ "gen_ai.operation.name": "chat", "gen_ai.provider.name": "fake", "gen_ai.request.model": "small" });
      expect(summariser.endNs).toBeLessThanOrEqual(chats.find((span) => span !== summariser)!.startNs);
      expect(summariser.traceId).toBe(turn.traceId);
    } finally {
      await host.close();
      await fake.stop();
    }
  });
});

describe("a receiver that never answers", () => {
  test("turns go on while an export is held; spans wait in the queue", async () => {
    const stuck = startOtlpReceiver({ kind: "hang" });
    const host = await offlineHost(stuck.url);
    try {
      await host.runTurn({ sessionId: "stuck-1", channel: "test", text: "one" });
      await waitFor(() => stuck.held() === 1, "the first export to be held");
      for (let i = 2; i <= 4; i++) {
        const result = await host.runTurn({ sessionId: `stuck-${i}`, channel: "test", text: `turn ${i}` });
        expect(result.text).not.toBe("");
      }
      // the held request is still the only one: the turns did not wait for it and nothing else was sent meanwhile
      expect(stuck.held()).toBe(1);
      expect(host.tracer.stats().queued).toBeGreaterThanOrEqual(3);
      expect(host.tracer.stats().droppedQueueFull).toBe(0);
    } finally {
      stuck.release();
      await host.close();
      await stuck.stop();
    }
    expect(host.tracer.stats()).toMatchObject({ queued: 0, droppedQueueFull: 0, droppedExportFailed: 0 });
    expect(stuck.spans().filter((span) => span.name === "invoke_agent main")).toHaveLength(4);
  });
});

test("off by default: the host's tracer is the no-op one", async () => {
  const host = await openAgentHost({ workspace: tempDir(), config: ConfigSchema.parse({}), env: {} });
  try {
    expect(host.tracer).toBe(NOOP_TRACER);
  } finally {
    await host.close();
  }
});
