/**
 * PDK middleware replies in the agent loop, with real middleware: "gate" (a WASM core module, see
 * test/fixtures/gate-middleware.ts) answers like PRX's JavaScript PDK — `{"action":"continue","data":...}` on every
 * call, a block as its ok value or as its err (the PDK's rate limiter throws it) when a trigger is in the envelope —
 * and "tail" runs after it on every stage, so its counters tell which later middleware still ran.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { BusEvent } from "../../../src/plugins/events/types.ts";
import { listPlugins } from "../../../src/plugins/api.ts";
import { MAX_BLOCK_REASON_BYTES } from "../../../src/plugins/middleware/index.ts";
import { parseProbeRequest, runProbe } from "../../../src/plugins/probes/index.ts";
import type { FakeServer } from "../../fakes/index.ts";
import { pdk, writeGatePlugin, type GateRule } from "../../fixtures/gate-middleware.ts";
import { captureLogs, fakeConfig, openHost, workspaceWith, type OpenedHost, type TestWorkspace } from "../capabilities/helpers.ts";
import { startFakeOpenAI } from "../../fakes/index.ts";

const CONTINUED = { text: "rewritten by continue", channel: "test", user_id: null, session_id: "x", metadata: {} };
const AT_LIMIT = "x".repeat(MAX_BLOCK_REASON_BYTES);
const PAST_LIMIT = "y".repeat(MAX_BLOCK_REASON_BYTES + 1);

const RULES: GateRule[] = [
  { stage: "inbound", when: "#in-ok", reply: { ok: pdk.block("blocked at inbound (ok)") } },
  { stage: "inbound", when: "#in-err", reply: { err: pdk.block("blocked at inbound (err)") } },
  { stage: "llm_request", when: "#req", reply: { err: pdk.block("request refused") } },
  { stage: "llm_response", when: "#resp", reply: { ok: pdk.block("response withheld") } },
  { stage: "outbound", when: "#out", reply: { err: pdk.block("outbound refused") } },
  { stage: "inbound", when: "#cont-valid", reply: { ok: pdk.continueWith(CONTINUED) } },
  { stage: "inbound", when: "#cont-json", reply: { ok: pdk.continueRaw("{not json") } },
  { stage: "inbound", when: "#cont-envelope", reply: { ok: pdk.continueRaw(JSON.stringify({ text: 42 })) } },
  { stage: "inbound", when: "#plain-err", reply: { err: "quota store unreachable" } },
  { stage: "inbound", when: "#err-continue", reply: { err: pdk.continueWith(CONTINUED) } },
  { stage: "inbound", when: "#at-limit", reply: { ok: pdk.block(AT_LIMIT) } },
  { stage: "inbound", when: "#past-limit", reply: { ok: pdk.block(PAST_LIMIT) } },
];

let fake: FakeServer;
let ws: TestWorkspace;
let opened: OpenedHost;
let logs: string[];
beforeAll(async () => {
  logs = captureLogs();
  fake = startFakeOpenAI();
  ws = workspaceWith([], fakeConfig(fake.url, "[memory]\nauto_recall = false\n"));
  await writeGatePlugin(ws.pluginsDir, { name: "gate", priority: 10, rules: RULES });
  await writeGatePlugin(ws.pluginsDir, { name: "tail", priority: 20, pass: "bare" });
  opened = await openHost(ws.root);
});
afterAll(async () => {
  await opened.host.close();
  await fake.stop();
  ws.cleanup();
});

const counters = (plugin: string) => opened.services.runtime.status.get(plugin, "middleware", "gate")!;
const history = async (session: string) => (await opened.host.sessions.messages(session)).map((m) => [m.role, m.content]);

/** Run one turn; report what else happened: provider calls, calls of the later middleware, lifecycle topics. */
async function turn(sessionId: string, text: string) {
  const events = opened.services.bus!.subscribe("prx.lifecycle.*");
  const requests = fake.chatRequests().length;
  const tail = counters("tail").invocations;
  const deltas: string[] = [];
  try {
    const result = await opened.host.runTurn({ sessionId, text, channel: "test", observer: { onDelta: (d) => deltas.push(d) } });
    const published: BusEvent[] = [];
    for (let event = events.tryNext(); event; event = events.tryNext()) published.push(event);
    return {
      result,
      deltas,
      providerCalls: fake.chatRequests().length - requests,
      tailCalls: counters("tail").invocations - tail,
      topics: published.map((e) => e.topic.replace("prx.lifecycle.", "")),
      block: published.find((e) => e.topic === "prx.lifecycle.middleware_block")?.payload,
    };
  } finally {
    events.close();
  }
}

describe("a block ends the turn at its stage", () => {
  test("inbound (ok reply): no later middleware, no provider call; the reason is the reply, stored and published", async () => {
    const before = counters("gate").blocks;
    const t = await turn("in-ok", "#in-ok hello");
    expect(t.result.text).toBe("blocked at inbound (ok)");
    expect(t.result.blocked).toEqual({ plugin: "gate", capability: "gate", stage: "inbound", reason: "blocked at inbound (ok)" });
    expect(t.result.iterations).toBe(0);
    expect(t.deltas).toEqual(["blocked at inbound (ok)"]);
    expect(t.providerCalls).toBe(0);
    expect(t.tailCalls).toBe(0);
    expect((await history("in-ok"))).toEqual([
      ["user", "#in-ok hello"],
      ["assistant", "blocked at inbound (ok)"],
    ]);
    expect(t.topics).toEqual(["agent_start", "middleware_block", "turn_complete", "agent_stop"]);
    expect(t.block).toMatchObject({ plugin: "gate", capability: "gate", stage: "inbound", reason: "blocked at inbound (ok)" });
    const status = counters("gate");
    expect(status.blocks).toBe(before + 1);
    expect(status.lastBlock).toMatchObject({ stage: "inbound", reason: "blocked at inbound (ok)" });
  });

  test("inbound (err variant, as the PDK's throwing middleware returns it): the same block, not a failure", async () => {
    const errors = counters("gate").errors;
    const t = await turn("in-err", "#in-err hello");
    expect(t.result.text).toBe("blocked at inbound (err)");
    expect(t.result.blocked?.stage).toBe("inbound");
    expect(t.providerCalls).toBe(0);
    expect(t.tailCalls).toBe(0);
    expect(counters("gate").errors).toBe(errors);
    expect(counters("gate").lastBlock?.reason).toBe("blocked at inbound (err)");
  });

  test("llm_request: inbound ran everywhere, then no later middleware and no provider call", async () => {
    const t = await turn("req", "#req please");
    expect(t.result.text).toBe("request refused");
    expect(t.result.blocked?.stage).toBe("llm_request");
    expect(t.result.iterations).toBe(0);
    expect(t.providerCalls).toBe(0);
    expect(t.tailCalls).toBe(1); // inbound only
    expect((await history("req"))).toEqual([
      ["user", "#req please"],
      ["assistant", "request refused"],
    ]);
    expect(t.block).toMatchObject({ stage: "llm_request", reason: "request refused" });
  });

  test("llm_request after a tool round: the tool call and its result stay in history, then the reason", async () => {
    fake.enqueue({ type: "tool_calls", calls: [{ name: "memory_store", arguments: { key: "k-req", content: "#req later" } }] });
    const t = await turn("req-later", "store a note");
    expect(t.result.text).toBe("request refused");
    expect(t.result.toolCalls).toHaveLength(1);
    expect(t.result.iterations).toBe(1);
    expect(t.providerCalls).toBe(1);
    expect((await history("req-later")).map(([role]) => role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect((await history("req-later")).at(-1)).toEqual(["assistant", "request refused"]);
  });

  test("llm_response: the provider's answer is withheld and its tool calls never run", async () => {
    const stored = await opened.host.memory.count();
    fake.enqueue({
      type: "tool_calls",
      text: "#resp",
      calls: [{ name: "memory_store", arguments: { key: "k-resp", content: "should not be stored" } }],
    });
    const t = await turn("resp", "do it");
    expect(t.result.text).toBe("response withheld");
    expect(t.result.blocked?.stage).toBe("llm_response");
    expect(t.result.toolCalls).toEqual([]);
    expect(t.result.iterations).toBe(1);
    expect(t.providerCalls).toBe(1);
    expect(t.tailCalls).toBe(2); // inbound, llm_request
    expect(await opened.host.memory.count()).toBe(stored);
    expect((await history("resp"))).toEqual([
      ["user", "do it"],
      ["assistant", "response withheld"],
    ]);
  });

  test("outbound: the final text is replaced by the reason, which outbound middleware does not see", async () => {
    fake.enqueue({ type: "text", text: "secret #out answer" });
    const t = await turn("out", "say it");
    expect(t.result.text).toBe("outbound refused");
    expect(t.result.blocked?.stage).toBe("outbound");
    expect(t.deltas).toEqual(["outbound refused"]);
    expect(t.tailCalls).toBe(3); // inbound, llm_request, llm_response
    expect((await history("out"))).toEqual([
      ["user", "say it"],
      ["assistant", "outbound refused"],
    ]);
    expect(t.block).toMatchObject({ stage: "outbound", reason: "outbound refused" });
  });

  test("a block in one turn does not affect the next turn of the session", async () => {
    const first = await turn("next", "#in-ok first");
    expect(first.result.blocked?.stage).toBe("inbound");
    const second = await turn("next", "second message");
    expect(second.result.text).toBe("echo: second message");
    expect(second.result.blocked).toBeUndefined();
    expect(second.topics).not.toContain("middleware_block");
    expect(second.tailCalls).toBe(4);
    // The provider sees a coherent history: the blocked exchange, then the new message.
    const sent = fake.chatRequests().at(-1)!.body.messages.map((m: { role: string; content: string }) => [m.role, m.content]);
    expect(sent.slice(-3)).toEqual([
      ["user", "#in-ok first"],
      ["assistant", "blocked at inbound (ok)"],
      ["user", "second message"],
    ]);
  });
});

describe("continue replies", () => {
  test("continue with unchanged data passes the envelope on (every call of this turn is one)", async () => {
    const errors = counters("gate").errors;
    const t = await turn("plain", "just chatting");
    expect(t.result.text).toBe("echo: just chatting");
    expect(counters("gate").errors).toBe(errors);
  });

  test("continue with valid data goes on with that data", async () => {
    const t = await turn("cont", "#cont-valid original");
    expect(t.result.text).toBe("echo: rewritten by continue");
    expect((await history("cont"))[0]).toEqual(["user", "rewritten by continue"]);
  });

  for (const [trigger, kind] of [
    ["#cont-json", "invalid_json"],
    ["#cont-envelope", "invalid_envelope"],
  ] as const) {
    test(`continue with ${kind === "invalid_json" ? "data that is not JSON" : "data failing the schema"} is isolated`, async () => {
      const before = counters("gate");
      const t = await turn(`cont-${kind}`, `${trigger} original`);
      expect(t.result.text).toBe(`echo: ${trigger} original`);
      const after = counters("gate");
      expect(after.errors).toBe(before.errors + 1);
      expect(after.extra[`failed_${kind}`]).toBe((before.extra[`failed_${kind}`] ?? 0) + 1);
      expect(after.lastError?.message).toContain("continue data");
      if (!process.env.PRX_TEST_LOGS) expect(logs.some((l) => l.includes("envelope passed on unchanged"))).toBe(true);
    });
  }

  test("an error that is a plain string, or a continue reply, stays an isolated failure", async () => {
    for (const trigger of ["#plain-err", "#err-continue"]) {
      const before = counters("gate");
      const t = await turn(`err${trigger.slice(1)}`, `${trigger} go`);
      expect(t.result.text).toBe(`echo: ${trigger} go`);
      expect(t.result.blocked).toBeUndefined();
      expect(counters("gate").errors).toBe(before.errors + 1);
      expect(counters("gate").blocks).toBe(before.blocks);
    }
  });
});

describe("the block reason limit", () => {
  test(`a reason of MAX_BLOCK_REASON_BYTES (${MAX_BLOCK_REASON_BYTES}) reaches the user whole`, async () => {
    const t = await turn("limit", "#at-limit");
    expect(t.result.text).toBe(AT_LIMIT);
  });

  test("one byte past it is cut to the limit, ending in an ellipsis; the block stands", async () => {
    const t = await turn("past", "#past-limit");
    expect(t.result.blocked?.stage).toBe("inbound");
    expect(new TextEncoder().encode(t.result.text).length).toBeLessThanOrEqual(MAX_BLOCK_REASON_BYTES);
    expect(t.result.text).toBe(`${"y".repeat(MAX_BLOCK_REASON_BYTES - 3)}…`);
    expect((await history("past")).at(-1)).toEqual(["assistant", t.result.text]);
  });
});

describe("blocks in status and probes", () => {
  test("the API lists blocks and the last block per capability", () => {
    const gate = listPlugins(opened.services.runtime).plugins.find((p) => p.name === "gate")!;
    const info = gate.capabilities[0]!.counters;
    expect(info.blocks).toBeGreaterThan(0);
    expect(info.last_block?.stage).toBeDefined();
    const tail = listPlugins(opened.services.runtime).plugins.find((p) => p.name === "tail")!;
    expect(tail.capabilities[0]!.counters).toMatchObject({ blocks: 0, last_block: null });
  });

  test("middleware_test reports a block as the turn would end: no output, who blocked and why", async () => {
    const data = { text: "#in-err probe", channel: "api", user_id: null, session_id: "p", metadata: {} };
    const probe = await runProbe(opened.services, parseProbeRequest({ action: "middleware_test", stage: "inbound", data }));
    expect(probe.result.output).toBeNull();
    expect(probe.result.blocked).toEqual({ plugin: "gate", capability: "gate", stage: "inbound", reason: "blocked at inbound (err)" });
    expect((probe.result.steps as { plugin: string; block: string | null }[]).map((s) => [s.plugin, s.block])).toEqual([
      ["gate", "blocked at inbound (err)"],
    ]);
  });
});
