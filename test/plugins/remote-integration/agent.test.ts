/** Remote plugins through the workspace plugin runtime and a real agent host, over both transports. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AgentHost } from "../../../src/agent/index.ts";
import { listPlugins, pluginInfo } from "../../../src/plugins/api.ts";
import { EVENT_MAX_PUBLISH_DEPTH } from "../../../src/plugins/events/index.ts";
import type { PluginServices } from "../../../src/plugins/runtime/index.ts";
import { startFakeOpenAI, type FakeServer } from "../../fakes/index.ts";
import { ASSIST_DIR, EXAMPLE_DIR, fakeConfig, openHost, setting, TRANSPORTS, workspaceWith, type TestWorkspace, quietLogs } from "./helpers.ts";
import { waitFor } from "../../helpers/wait.ts";
import { hostDb } from "../../helpers/host-db.ts";

quietLogs();

let fake: FakeServer;
beforeAll(() => {
  fake = startFakeOpenAI();
});
afterAll(() => fake.stop());

describe.each(TRANSPORTS)("remote plugins in an agent host (%s)", (transport) => {
  let ws: TestWorkspace;
  let host: AgentHost;
  let services: PluginServices;

  beforeAll(async () => {
    ws = workspaceWith([EXAMPLE_DIR, ASSIST_DIR], fakeConfig(fake.url), transport);
    ({ host, services } = await openHost(ws.root));
  });
  afterAll(async () => {
    await host?.close();
    ws?.cleanup();
  });

  test("an action is a tool: validate, handler, actionCallback to observer.onMessage; provider context in the prompt", async () => {
    fake.reset();
    const shown: string[] = [];
    const result = await host.runTurn({
      sessionId: `notes-${transport}`,
      text: 'use tool REMEMBER_NOTE {"text":"buy milk"}',
      channel: "test",
      observer: { onMessage: (text) => shown.push(text) },
    });
    expect(shown).toEqual(["Noted: buy milk"]);
    expect(result.messages).toEqual(["Noted: buy milk"]);
    expect(result.toolCalls.map((c) => [c.call.name, c.result.success])).toEqual([["REMEMBER_NOTE", true]]);
    expect(result.text).toStartWith("tool said: remembered note ");

    const first = fake.chatRequests()[0]!.body;
    const system = first.messages[0];
    expect(system.role).toBe("system");
    expect(system.content).toMatch(/It is (morning|afternoon|evening) \(/);
    expect(system.content).toContain(`assist-remote v1 saw: use tool REMEMBER_NOTE`);
    const tool = first.tools.find((t: { function: { name: string } }) => t.function.name === "REMEMBER_NOTE");
    expect(tool.function.description).toContain("Also known as: SAVE_NOTE, NOTE_THIS");
    expect(tool.function.description).toContain("Example: user: remember that the milk is in the fridge");
    expect(tool.function.parameters.required).toEqual(["text"]);
    expect((await host.memory.recall("milk", 5))[0]?.content).toBe("buy milk");

    // the plugin's own NOTE_SAVED went over the bus (remote.NOTE_SAVED) back to its event handler
    const id = result.text.slice("tool said: remembered note ".length);
    expect(await waitFor(() => setting(hostDb(host), "example-remote", "lastSaved"))).toBe(id);
  });

  test("validate declining is a failed tool result the model sees; no callback", async () => {
    const shown: string[] = [];
    const result = await host.runTurn({
      sessionId: `decline-${transport}`,
      // SEE_CALL's validate declines a user's message that says "decline"
      text: 'use tool SEE_CALL {"decline":true}',
      channel: "test",
      observer: { onMessage: (text) => shown.push(text) },
    });
    expect(shown).toEqual([]);
    expect(result.toolCalls[0]!.result.success).toBe(false);
    expect(result.toolCalls[0]!.result.error).toContain("validate returned false");
  });

  test("an event published on the bus reaches the plugin's handler", async () => {
    services.bus!.publish("remote.NOTE_SAVED", { plugin: "test", name: "NOTE_SAVED", payload: { id: `bus-${transport}` } });
    expect(await waitFor(() => setting(hostDb(host), "example-remote", "lastSaved") === `bus-${transport}`)).toBe(true);
    const hook = pluginInfo(services.runtime, "example-remote").capabilities.find((c) => c.type === "hook")!;
    expect(hook.name).toBe("NOTE_SAVED");
    expect(hook.events).toEqual(["remote.NOTE_SAVED"]);
    expect(hook.live).toBe(true);
    expect(hook.counters.invocations).toBeGreaterThanOrEqual(2);
  });

  test("a remote handler re-emitting its own event is stopped at the bus's nesting limit", async () => {
    const failures = () => services.runtime.current().remote("assist-remote")!.handle.status().failures;
    const before = failures();
    services.bus!.publish("remote.PING", { n: 0 });
    await waitFor(() => failures() > before);
    expect(setting(hostDb(host), "assist-remote", "pings")).toBe(EVENT_MAX_PUBLISH_DEPTH + 1);
  });

  test("remote:<plugin> serves a turn from the plugin's models; evaluators run after the turn", async () => {
    const result = await host.runTurn({
      sessionId: `model-${transport}`,
      text: "hello model",
      channel: "test",
      provider: "remote:assist-remote",
    });
    expect(result.provider).toBe("remote:assist-remote");
    expect(result.text).toBe("model v1: hello model");
    expect(setting(hostDb(host), "assist-remote", "lastTurn")).toBe("hello model => model v1: hello model");
    const unknown = await host.runTurn({ sessionId: "x", text: "hi", channel: "test", provider: "remote:example-remote" }).catch((e) => e);
    expect(unknown.code).toBe("PROVIDER_UNKNOWN");
    expect(unknown.hint).toContain("remote:assist-remote");
  });

  test("composeState sees the session's history; useModel reaches the configured provider", async () => {
    const session = `history-${transport}`;
    fake.enqueue({ type: "text", text: "first answer" });
    await host.runTurn({ sessionId: session, text: "first question", channel: "test" });
    const recalled = await host.runTurn({ sessionId: session, text: "use tool RECALL_HISTORY {}", channel: "test" });
    const output = recalled.toolCalls[0]!.result.output;
    expect(output).toContain("user: first question\nassistant: first answer\nuser: use tool RECALL_HISTORY {}");
    fake.reset();
    const gated = await host.runTurn({ sessionId: session, text: 'use tool GATED_ECHO {"text":"ping"}', channel: "test" });
    // the action's message is the user's message that led to the call, as in elizaOS
    expect(gated.toolCalls[0]!.result.output).toBe('v1: echo: gate: use tool GATED_ECHO {"text":"ping"}');
    expect(fake.chatRequests()[1]!.body.model).toBe("fake-model");
  });

  test("an action gets the user's message, composeState's state and the model's arguments as options; validate the same message", async () => {
    const session = `see-${transport}`;
    const said = 'use tool SEE_CALL {"n":1,"why":"asked"}';
    const result = await host.runTurn({ sessionId: session, text: said, channel: "test", userId: "ada" });
    const seen = JSON.parse(result.toolCalls[0]!.result.output) as Record<string, unknown>;
    expect(seen.text).toBe(said);
    expect(seen.roomId).toBe(session);
    expect(typeof seen.entityId).toBe("string");
    expect(seen.options).toEqual({ n: 1, why: "asked" });
    expect(seen.provided).toBe(true);
    expect(setting(hostDb(host), "assist-remote", "validateSaw")).toBe(said);
  });

  test("elizaOS's run events reach listening plugins with @elizaos/core's payloads", async () => {
    const session = `events-${transport}`;
    const said = 'use tool SEE_CALL {"n":2}';
    await host.runTurn({ sessionId: session, text: said, channel: "test", userId: "ada" });
    const ev = (name: string) => waitFor(() => setting(hostDb(host), "assist-remote", `ev:${name}`) as Record<string, any> | undefined);
    const received = await ev("MESSAGE_RECEIVED");
    expect(received).toMatchObject({ source: "test", message: { roomId: session, content: { text: said, source: "test" }, metadata: { userId: "ada" } } });
    expect(typeof received.message.entityId).toBe("string");
    const started = await ev("RUN_STARTED");
    expect(started).toMatchObject({ source: "test", roomId: session, messageId: received.message.id, status: "started" });
    expect(await ev("MODEL_USED")).toMatchObject({ source: "test", provider: "fake", type: "TEXT_LARGE" });
    expect(await ev("ACTION_STARTED")).toMatchObject({ roomId: session, content: { actions: ["SEE_CALL"] }, messageId: received.message.id });
    expect(await ev("ACTION_COMPLETED")).toMatchObject({ content: { actions: ["SEE_CALL"], actionStatus: "completed" } });
    const sent = await ev("MESSAGE_SENT");
    expect(sent.message.roomId).toBe(session);
    expect(sent.message.content.text).toStartWith("tool said:");
    const ended = await ev("RUN_ENDED");
    expect(ended).toMatchObject({ runId: started.runId, messageId: received.message.id, roomId: session, status: "completed" });
    expect(ended.duration).toBe(ended.endTime - ended.startTime);
    expect(ended.error).toBeUndefined();
  });

  test("GET /api/plugins data: kind remote, status, worker counters and surfaces", () => {
    const list = listPlugins(services.runtime);
    const example = list.plugins.find((p) => p.name === "example-remote")!;
    expect(example.kind).toBe("remote");
    expect(example.status).toBe("active");
    expect(example.remote!.transport).toBe(transport);
    expect(example.remote!.state).toBe("ready");
    expect(example.remote!.pid === null).toBe(transport === "worker");
    expect(example.remote!.calls).toBeGreaterThan(0);
    expect(example.remote!.callbacks).toBe(1);
    expect(example.remote!.surfaces).toEqual({
      actions: ["REMEMBER_NOTE"],
      providers: ["TIME_OF_DAY"],
      models: [],
      events: ["NOTE_SAVED"],
      evaluators: [],
      services: ["NOTES"],
      routes: ["GET /notes", "GET /health"],
    });
    const tool = example.capabilities.find((c) => c.type === "tool")!;
    expect([tool.name, tool.live, tool.counters.invocations, tool.counters.errors]).toEqual(["REMEMBER_NOTE", true, 1, 0]);
    const assist = list.plugins.find((p) => p.name === "assist-remote")!;
    expect(assist.remote!.surfaces.models).toEqual(["TEXT_LARGE"]);
    expect(assist.remote!.surfaces.evaluators).toEqual(["RECORD_TURN"]);
  });
});
