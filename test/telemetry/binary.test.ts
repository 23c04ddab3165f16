/**
 * Traces through the built binary: a gateway turn with a tool call, exported to a fake OTLP/HTTP receiver that decodes
 * the requests as the specification defines them; and a receiver that is down, which never fails a turn.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fakeProviderConfig, runPrx, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { binarySuite } from "../helpers/binary-suite.ts";
import { waitFor } from "../helpers/wait.ts";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../fakes/otlp-receiver.ts";

const suite = binarySuite();
let receiver: OtlpReceiver;
const gateways: RunningGateway[] = [];

beforeAll(() => {
  receiver = startOtlpReceiver();
});
afterAll(async () => {
  for (const gateway of gateways) {
    gateway.proc.kill();
    await gateway.proc.exited;
  }
  await receiver.stop();
});

async function gatewayWith(telemetry: string): Promise<{ url: string; token: string }> {
  const dir = suite.workspace(fakeProviderConfig(suite.fake.url, `[memory]\nauto_recall = false\n[telemetry]\n${telemetry}`));
  const gateway = await startGatewayBinary(dir);
  gateways.push(gateway);
  const paired = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
  return { url: gateway.url, token: ((await paired.json()) as { token: string }).token };
}

function chat(gateway: { url: string; token: string }, text: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${gateway.token}`, ...headers },
    body: JSON.stringify({ model: "fake-model", messages: [{ role: "user", content: text }] }),
  });
}

describe("traces of a gateway turn", () => {
  test("turn, chat and tool spans continue the caller's trace, with the GenAI attributes", async () => {
    const gateway = await gatewayWith(`otlp_endpoint = "${receiver.url}"\nservice_name = "prx-e2e"\n`);
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const callerSpan = "00f067aa0ba902b7";
    const response = await chat(gateway, 'use tool memory_store {"key":"color","content":"blue"}', { traceparent: `00-${traceId}-${callerSpan}-01` });
    expect(response.status).toBe(200);
    const status = (await (await fetch(`${gateway.url}/api/status`, { headers: { authorization: `Bearer ${gateway.token}` } })).json()) as Record<string, unknown>;
    expect(status.telemetry).toMatchObject({ dropped_queue_full: 0 });
    expect(((await response.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toStartWith("tool said:");

    const ofTrace = () => receiver.spans().filter((span) => span.traceId === traceId);
    const spans = await waitFor(() => (ofTrace().length >= 4 ? ofTrace() : null), "the turn's spans to reach the receiver");
    expect(receiver.invalid()).toEqual([]);
    const named = (prefix: string) => spans.filter((span) => span.name.startsWith(prefix));
    const [turn] = named("invoke_agent ") as [ReceivedSpan];
    const chats = named("chat ");
    const [tool] = named("execute_tool ") as [ReceivedSpan];

    expect(turn.name).toBe("invoke_agent main");
    expect(turn.parentSpanId).toBe(callerSpan);
    expect(turn.resource["service.name"]).toBe("prx-e2e");
    expect(turn.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "main",
      "prx.channel": "openai",
      "gen_ai.provider.name": "fake",
      "prx.turn.iterations": 2,
      "prx.turn.tool_calls": 1,
    });
    expect(turn.attributes["prx.session.id"]).toBe(turn.attributes["gen_ai.conversation.id"]);

    expect(chats).toHaveLength(2);
    for (const call of chats) {
      expect(call.name).toBe("chat fake-model");
      expect(call.kind).toBe(3);
      expect(call.parentSpanId).toBe(turn.spanId);
      expect(call.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "fake",
        "gen_ai.request.model": "fake-model",
        "gen_ai.response.model": "fake-model",
      });
      expect(call.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
      expect(call.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
      expect(call.attributes["gen_ai.response.finish_reasons"]).toHaveLength(1);
      expect(call.startNs).toBeGreaterThanOrEqual(turn.startNs);
      expect(call.endNs).toBeLessThanOrEqual(turn.endNs);
    }
    const input = chats.reduce((sum, call) => sum + (call.attributes["gen_ai.usage.input_tokens"] as number), 0);
    expect(turn.attributes["gen_ai.usage.input_tokens"]).toBe(input);

    expect(tool.name).toBe("execute_tool memory_store");
    expect(tool.parentSpanId).toBe(turn.spanId);
    expect(tool.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "memory_store", "prx.tool.success": true });
    expect(typeof tool.attributes["gen_ai.tool.call.id"]).toBe("string");
    // the tool ran between the two model calls
    const [first, second] = chats.toSorted((a, b) => (a.startNs < b.startNs ? -1 : 1)) as [ReceivedSpan, ReceivedSpan];
    expect(tool.startNs).toBeGreaterThanOrEqual(first.endNs);
    expect(tool.endNs).toBeLessThanOrEqual(second.startNs);
    for (const span of spans) expect(span.status.code).toBe(0);

    // a streamed answer continues the caller's trace too
    const streamedTrace = "5bf92f3577b34da6a3ce929d0e0e4737";
    const streamed = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${gateway.token}`, traceparent: `00-${streamedTrace}-${callerSpan}-01` },
      body: JSON.stringify({ model: "fake-model", stream: true, messages: [{ role: "user", content: "stream please" }] }),
    });
    expect(await streamed.text()).toContain("[DONE]");
    const streamedTurn = await waitFor(() => receiver.spans().find((span) => span.traceId === streamedTrace && span.name === "invoke_agent main"), "the streamed turn's span");
    expect(streamedTurn.parentSpanId).toBe(callerSpan);

    // without a traceparent the turn starts a trace of its own
    expect((await chat(gateway, "hello")).status).toBe(200);
    const own = await waitFor(() => receiver.spans().find((span) => span.name === "invoke_agent main" && span.traceId !== traceId && span.traceId !== streamedTrace), "a second turn's span");
    expect(own.parentSpanId).toBeNull();
  }, 60_000);

  test('protocol = "http/protobuf": the same spans, sent as protobuf', async () => {
    const gateway = await gatewayWith(`otlp_endpoint = "${receiver.url}"\nprotocol = "http/protobuf"\nservice_name = "prx-protobuf"\n`);
    expect((await chat(gateway, 'use tool memory_store {"key":"p","content":"1"}')).status).toBe(200);
    const spans = await waitFor(() => {
      const mine = receiver.spans().filter((span) => span.resource["service.name"] === "prx-protobuf");
      return mine.length >= 4 ? mine : null;
    }, "the protobuf export");
    expect(receiver.encodings()).toContain("protobuf");
    expect(receiver.invalid()).toEqual([]);
    expect(spans.map((span) => span.name).sort()).toEqual(["chat fake-model", "chat fake-model", "execute_tool memory_store", "invoke_agent main"]);
    const turn = spans.find((span) => span.name === "invoke_agent main")!;
    for (const span of spans) if (span !== turn) expect(span.parentSpanId).toBe(turn.spanId);
  }, 60_000);

  test("prx doctor checks the receiver", async () => {
    const dir = suite.workspace(fakeProviderConfig(suite.fake.url, `[telemetry]\notlp_endpoint = "${receiver.url}"\n`));
    const { stdout } = await runPrx(["doctor", "--json", "-w", dir]);
    const checks = (JSON.parse(stdout) as { checks: Array<{ status: string; name: string; detail: string }> }).checks;
    expect(checks.find((check) => check.name === "telemetry")).toEqual({ status: "ok", name: "telemetry", detail: `${receiver.url} takes OTLP/JSON traces` });
  }, 60_000);

  test("a receiver that is down never fails a turn; the lost spans are counted in /metrics", async () => {
    const down = Bun.serve({ port: 0, fetch: () => new Response() });
    const endpoint = `http://127.0.0.1:${down.port}`;
    await down.stop(true);
    const gateway = await gatewayWith(`otlp_endpoint = "${endpoint}"\n`);
    for (let i = 0; i < 3; i++) {
      const response = await chat(gateway, 'use tool memory_store {"key":"n","content":"1"}');
      expect(response.status).toBe(200);
    }
    const metrics = () => fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${gateway.token}` } }).then((r) => r.text());
    const dropped = (text: string) => Number(/prx_telemetry_spans_dropped_total\{reason="export_failed"\} (\d+)/.exec(text)?.[1] ?? 0);
    // 3 turns of 4 spans each
    const text = await waitFor(async () => {
      const body = await metrics();
      return dropped(body) >= 12 ? body : null;
    }, "the failed exports to be counted");
    expect(text).toContain('prx_telemetry_spans_dropped_total{reason="queue_full"} 0');
    expect(text).toContain("prx_telemetry_spans_exported_total 0");
    const status = (await (await fetch(`${gateway.url}/api/status`, { headers: { authorization: `Bearer ${gateway.token}` } })).json()) as { telemetry: Record<string, number> };
    expect(status.telemetry.exported).toBe(0);
    expect(status.telemetry.dropped_export_failed).toBeGreaterThanOrEqual(12);
  }, 60_000);
});
