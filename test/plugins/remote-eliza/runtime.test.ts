/**
 * An elizaOS 1.x plugin (npm layout, its own node_modules, three-line entry) in a real agent host: every runtime
 * method it calls is checked through real turns against prx's stores, over both transports.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AgentHost } from "../../../src/agent/index.ts";
import { getLogLevel, getLogSink, setLogLevel, setLogSink } from "../../../src/core/logger.ts";
import type { PluginServices } from "../../../src/plugins/runtime/index.ts";
import { listPlugins } from "../../../src/plugins/api.ts";
import { stringToUuid } from "../../../src/plugins/remote/index.ts";
import { startFakeOpenAI, type FakeServer } from "../../fakes/index.ts";
import { setting } from "../remote-integration/workspace.ts";
import { AGENT_CONFIG, cached, fakeConfig, NOTES, notesWorkspace, openHost, TRANSPORTS, type TestWorkspace } from "./helpers.ts";
import { waitFor } from "../../helpers/wait.ts";
import { hostDb } from "../../helpers/host-db.ts";

const AGENT_ID = stringToUuid("Ada");
const EXPECTED_PACKAGES = {
  importResolve: {
    "@elizaos/core": "node_modules/@elizaos/core/dist/node.js",
    "slug-cjs": "node_modules/@acme/plugin-notes/node_modules/slug-cjs/lib/slug.js",
    "tiny-fmt": "node_modules/tiny-fmt/esm/index.mjs",
  },
  requireResolve: { "slug-cjs": "node_modules/@acme/plugin-notes/node_modules/slug-cjs/lib/slug.js" },
  values: { slug: "hello-notes", slugVersion: "2.0.0", fmt: "module", list: "- a\n- b" },
};
let fake: FakeServer;
const logLines: string[] = [];
// the log level and sink are process-wide: put back what the next test file expects
const previous = { level: getLogLevel(), sink: getLogSink() };
beforeAll(() => {
  fake = startFakeOpenAI();
  // plugin log lines reach the host's log: capture it at info (the worker sends nothing below the host's level)
  setLogLevel("info");
  setLogSink((line) => void logLines.push(line));
});
afterAll(async () => {
  setLogLevel(previous.level);
  setLogSink(previous.sink);
  await fake.stop();
});

describe.each(TRANSPORTS)("an elizaOS plugin from its own node_modules in an agent host (%s)", (transport) => {
  let ws: TestWorkspace;
  let host: AgentHost;
  let services: PluginServices;
  const session = `report-${transport}`;
  type Report = Record<string, Record<string, unknown>>;
  let report: Report;

  beforeAll(async () => {
    ws = notesWorkspace(fakeConfig(fake.url, AGENT_CONFIG), transport);
    ({ host, services } = await openHost(ws.root));
    fake.reset();
    fake.enqueue({ type: "text", text: "first answer" });
    await host.runTurn({ sessionId: session, text: "first question", channel: "test" });
    const turn = await host.runTurn({ sessionId: session, text: "use tool RUNTIME_REPORT {}", channel: "test" });
    expect(turn.toolCalls.map((c) => [c.call.name, c.result.success, c.result.error])).toEqual([["RUNTIME_REPORT", true, null]]);
    report = JSON.parse(turn.toolCalls[0]!.result.output) as Report;
  });
  afterAll(async () => {
    await host?.close();
    ws?.cleanup();
  });

  test("it loads: active, its service (no rpcMethods) started with the plugin, init ran with the settings", () => {
    const plugin = listPlugins(services.runtime).plugins.find((p) => p.name === NOTES)!;
    expect([plugin.status, plugin.remote!.state, plugin.remote!.transport]).toEqual(["active", "ready", transport]);
    expect(plugin.remote!.services_started).toEqual(["notes"]);
    expect(plugin.remote!.surfaces.services).toEqual(["notes"]);
    const handle = services.runtime.current().remote(NOTES)!.handle;
    expect(handle.descriptor().services).toEqual([{ serviceType: "notes", rpcMethods: [], methods: {} }]);
    expect(cached(hostDb(host), NOTES, "init")).toEqual({ greeting: "Noted", agentId: AGENT_ID });
  });

  test("packages resolve from the plugin's node_modules as bun resolves them", () => {
    // slug-cjs 2 is nested under @acme/plugin-notes (CJS by main), tiny-fmt resolves by module, @elizaos/core by
    // its exports' bun/node condition
    expect(report.packages).toEqual(EXPECTED_PACKAGES);
  });

  test("agentId, character and the live surface lists", () => {
    expect(report.agent).toMatchObject({
      agentId: AGENT_ID,
      fromName: AGENT_ID,
      character: { id: AGENT_ID, name: "Ada", bio: ["Keeps notes.", "Answers briefly."], system: "You are Ada.", topics: [] },
    });
    expect(report.agent!.uniqueForUser).toBe(stringToUuid(`user@${session}:${AGENT_ID}`));
    expect(report.lists).toEqual({
      actions: ["TAKE_NOTE", "RUNTIME_REPORT"],
      providers: ["NOTES_COUNT", "NOTES_DYNAMIC", "NOTES_PRIVATE"],
      evaluators: ["NOTES_EVAL"],
    });
  });

  test("getSetting is synchronous over the manifest settings; setSetting takes effect at once and persists", async () => {
    expect(report.settings).toEqual({
      greeting: "Noted",
      greetingIsPromise: false,
      feature: true,
      missing: null,
      afterSet: session,
    });
    expect(await waitFor(() => setting(hostDb(host), NOTES, "NOTES_LAST_REPORT"))).toBe(session);
  });

  test("getCache / setCache / deleteCache use the plugin KV", () => {
    expect(report.cache).toEqual({
      set: true,
      get: { roomId: session, n: 1 },
      deleted: true,
      afterDelete: true,
      deletedAgain: false,
      kept: true,
    });
    expect(cached(hostDb(host), NOTES, "report:kept")).toEqual({ roomId: session });
    expect(cached(hostDb(host), NOTES, "report")).toBeUndefined();
  });

  test("createMemory / getMemories / searchMemories: the plugin's memories and the session as the table messages", async () => {
    const memories = report.memories as Record<string, unknown>;
    const factId = memories.factId as string;
    expect(memories.byId).toBe("the spare key is under the blue flowerpot");
    expect(memories.facts).toEqual(["the spare key is under the blue flowerpot"]);
    expect((memories.messages as unknown[]).slice(0, 3)).toEqual([
      { text: "use tool RUNTIME_REPORT {}", entityId: `user@${session}` },
      { text: "first answer", entityId: AGENT_ID },
      { text: "first question", entityId: `user@${session}` },
    ]);
    expect(memories.search).toEqual([{ id: factId, similarity: "number" }]);
    // by vector: the fact was stored without an embedding, so nothing is near
    expect(memories.searchByEmbedding).toEqual({ ok: true, value: [] });
    expect((await host.memory.get(`remote/${NOTES}/${factId}`))?.content).toBe("the spare key is under the blue flowerpot");
  });

  test("rooms, entities and relationships are derived from the session", () => {
    expect(report.rooms).toMatchObject({
      room: { id: session, agentId: AGENT_ID, source: "test", type: "DM", channelId: session },
      byIds: [session],
      missing: null,
      user: { id: `user@${session}`, names: ["user"], agentId: AGENT_ID, metadata: { roomId: session, source: "test" } },
      agent: { id: AGENT_ID, names: ["Ada"] },
      relationships: [{ sourceEntityId: `user@${session}`, targetEntityId: AGENT_ID, tags: ["session"], metadata: { roomId: session } }],
      conversationLength: 12,
    });
    expect((report.rooms!.room as { metadata: { messageCount: number } }).metadata.messageCount).toBeGreaterThanOrEqual(3);
  });

  test("composeState(message, includeList, onlyInclude, skipCache): providers by the 1.x rules, history, values", () => {
    expect(report.state).toMatchObject({
      providers: ["NOTES_COUNT"],
      withDynamic: ["NOTES_COUNT", "NOTES_DYNAMIC"],
      onlyPrivate: ["NOTES_PRIVATE"],
      noteCount: 0,
    });
    expect(report.state!.recentMessages).toContain("user: first question\nassistant: first answer");
    expect(report.state!.text).toContain("The user has 0 notes.");
    expect(report.state!.text).not.toContain("private notes context");
  });

  test("useModel reaches the configured provider; getService returns the live instance synchronously", () => {
    expect(report.model as unknown).toBe("echo: say hi to the notes plugin");
    expect(report.service).toEqual({ isPromise: false, startedFor: AGENT_ID, notes: 0, unknown: null });
  });

  test("emitEvent (several names, runtime in the payload) reaches the handlers with params at the top level", async () => {
    expect(await waitFor(() => cached(hostDb(host), NOTES, "event:REPORT_DONE"))).toEqual({ roomId: session });
    expect(await waitFor(() => cached(hostDb(host), NOTES, "event:REPORT_AGAIN"))).toEqual({ roomId: session });
  });

  test("members prx cannot honour fail with PLUGIN_UNSUPPORTED naming them", () => {
    type Attempt = { ok: boolean; code: string; message: string };
    const unsupported = report.unsupported as { createTask: Attempt; registerEvent: Attempt; services: Attempt } & Record<string, unknown>;
    expect(unsupported.createTask).toMatchObject({ ok: false, code: "PLUGIN_UNSUPPORTED" });
    expect(unsupported.createTask.message).toStartWith("runtime.createTask is not supported in remote mode: ");
    expect(unsupported.registerEvent.message).toStartWith("runtime.registerEvent is not supported in remote mode: ");
    expect(unsupported.services).toMatchObject({ ok: false, code: "PLUGIN_UNSUPPORTED" });
    expect(unsupported.typeofCreateTask).toBe("function");
    expect(unsupported.notAnElizaMember).toBe("undefined");
  });

  test("runtime.logger and runtime.log reach the host's log at its level", () => {
    const mine = logLines.filter((l) => l.includes(`[remote.${NOTES}]`));
    for (const text of ["report started", "report warning", "child error", "log report"]) {
      expect(mine.some((l) => l.includes(text))).toBe(true);
    }
    expect(mine.some((l) => l.includes("report debug line"))).toBe(false);
    expect(mine.find((l) => l.includes("child error"))).toContain('"part":"child"');
  });

  test("an action with a callback in a turn: the service, a memory, the cache, and its own event", async () => {
    const shown: string[] = [];
    // the plugin reads the note from the user's message, as elizaOS hands it the message that led to the call
    fake.enqueue({ type: "tool_calls", calls: [{ name: "TAKE_NOTE", arguments: "{}" }] });
    const result = await host.runTurn({
      sessionId: `note-${transport}`,
      text: "The keys are under the mat",
      channel: "test",
      observer: { onMessage: (text) => shown.push(text) },
    });
    expect(shown).toEqual(["Noted: The keys are under the mat"]);
    const output = result.toolCalls[0]!.result.output;
    expect(output).toStartWith("note the-keys-are-under-the-mat saved as ");
    const memoryId = output.slice(output.lastIndexOf(" ") + 1);
    expect(cached(hostDb(host), NOTES, "note:the-keys-are-under-the-mat")).toEqual({ memoryId, text: "The keys are under the mat" });
    expect(await waitFor(() => cached(hostDb(host), NOTES, "event:NOTE_TAKEN"))).toEqual({
      noteId: "the-keys-are-under-the-mat",
      memoryId,
    });
    // the route and the provider see the note the action added to the live service
    const handle = services.runtime.current().remote(NOTES)!.handle;
    const route = await handle.handleRoute("GET", "/notes", new Request("http://h/plugins/eliza-notes/notes"));
    expect(((await route.json()) as { notes: Array<{ text: string }> }).notes.map((n) => n.text)).toEqual([
      "The keys are under the mat",
    ]);
    await host.runTurn({ sessionId: `note-${transport}`, text: "how many notes?", channel: "test" });
    expect(fake.chatRequests().at(-1)!.body.messages[0].content).toContain("The user has 1 notes.");
  });

  test("lifecycle events carry runtime.logger; the evaluator ran; the models serve as remote:eliza-notes", async () => {
    expect(await waitFor(() => cached(hostDb(host), NOTES, "event:MESSAGE_RECEIVED"))).toMatchObject({ logger: "function" });
    expect((cached(hostDb(host), NOTES, "event:MESSAGE_RECEIVED") as { keys: string[] }).keys).toContain("runtime");
    expect(await waitFor(() => cached(hostDb(host), NOTES, "evaluated"))).toBeTruthy();
    const reply = await host.runTurn({ sessionId: `model-${transport}`, text: "hi model", channel: "test", provider: `remote:${NOTES}` });
    expect(reply.text).toBe("notes model heard: hi model");
  });
});
