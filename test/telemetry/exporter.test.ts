import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OtlpExporter, TELEMETRY_BATCH_MAX_SPANS, TELEMETRY_QUEUE_MAX_SPANS } from "../../src/telemetry/exporter.ts";
import { encodeTraces, unixNano } from "../../src/telemetry/otlp-json.ts";
import { encodeTracesProtobuf } from "../../src/telemetry/otlp-protobuf.ts";
import { protobufToJsonMapping } from "../fakes/otlp-protobuf.ts";
import { openTracer, tracesUrl } from "../../src/telemetry/open.ts";
import { RecordingTracer } from "../../src/telemetry/tracer.ts";
import { formatTraceparent, inChildSpan, parseTraceparent, probeReceiver, SpanKind, type Tracer } from "../../src/telemetry/index.ts";
import { TelemetrySchema } from "../../src/config/schema.ts";
import type { FinishedSpan } from "../../src/telemetry/types.ts";
import { decodeSpans, ExportTraceServiceRequestSchema, startOtlpReceiver, type OtlpReceiver } from "../fakes/otlp-receiver.ts";
import { waitFor } from "../helpers/wait.ts";

const resource = { serviceName: "prx-test", scopeName: "prx" };
const HOUR = 3_600_000;

function span(i: number): FinishedSpan {
  return {
    name: `span ${i}`,
    kind: SpanKind.internal,
    traceId: "0af7651916cd43dd8448eb211c80319c",
    spanId: i.toString(16).padStart(16, "0"),
    startMs: 1_700_000_000_000.25,
    endMs: 1_700_000_000_001.5,
    attributes: { n: i },
  };
}

let receiver: OtlpReceiver;
beforeAll(() => {
  receiver = startOtlpReceiver();
});
afterAll(() => receiver.stop());

/** An exporter that sends only when told (its timer is an hour). */
const exporter = (url = `${receiver.url}/v1/traces`, more: Partial<ConstructorParameters<typeof OtlpExporter>[0]> = {}) =>
  new OtlpExporter({ url, headers: {}, resource, intervalMs: HOUR, ...more });

describe("OTLP/JSON encoding", () => {
  test("decodes as an ExportTraceServiceRequest: hex ids, integer enums, nanoseconds as decimal strings, typed values", () => {
    const ended: FinishedSpan = {
      ...span(1),
      parentSpanId: "00f067aa0ba902b7",
      kind: SpanKind.client,
      attributes: { s: "x", i: 42, d: 0.5, b: true, big: 2 ** 60, list: ["stop"] },
      error: "it broke",
    };
    const body = JSON.parse(encodeTraces([ended], resource));
    const decoded = decodeSpans(ExportTraceServiceRequestSchema.parse(body));
    expect(decoded).toHaveLength(1);
    const got = decoded[0]!;
    expect(got.parentSpanId).toBe("00f067aa0ba902b7");
    expect(got.kind).toBe(3);
    expect(got.status).toEqual({ code: 2, message: "it broke" });
    expect(got.startNs).toBe(1_700_000_000_000_250_000n);
    expect(got.endNs).toBe(1_700_000_000_001_500_000n);
    expect(got.attributes).toEqual({ s: "x", i: 42, d: 0.5, b: true, big: 2 ** 60, list: ["stop"] });
    expect(got.resource["service.name"]).toBe("prx-test");
    const raw = body.resourceSpans[0].scopeSpans[0].spans[0];
    expect(raw.attributes.find((kv: { key: string }) => kv.key === "i").value).toEqual({ intValue: "42" });
    expect(typeof raw.startTimeUnixNano).toBe("string");
  });

  test("the protobuf encoding decodes, field by field, to the same request as the JSON one", () => {
    const ended: FinishedSpan[] = [
      { ...span(1), parentSpanId: "00f067aa0ba902b7", kind: SpanKind.client, attributes: { s: "x", empty: "", i: 42, neg: -7, d: 0.5, b: true, f: false, list: ["stop", "length"] }, error: "it broke" },
      { ...span(2), name: "root", attributes: {} },
    ];
    const fromJson = decodeSpans(ExportTraceServiceRequestSchema.parse(JSON.parse(encodeTraces(ended, resource))));
    const fromProtobuf = decodeSpans(ExportTraceServiceRequestSchema.parse(protobufToJsonMapping(encodeTracesProtobuf(ended, resource))));
    expect(fromProtobuf).toEqual(fromJson);
    expect(fromProtobuf[0]!.attributes).toEqual({ s: "x", empty: "", i: 42, neg: -7, d: 0.5, b: true, f: false, list: ["stop", "length"] });
    expect(fromProtobuf[1]!.parentSpanId).toBeNull();
    // a batch whose messages need lengths of two and three bytes
    const batch = Array.from({ length: TELEMETRY_BATCH_MAX_SPANS }, (_, i) => ({ ...span(i), attributes: { n: i, text: "x".repeat(i) } }));
    const decoded = decodeSpans(ExportTraceServiceRequestSchema.parse(protobufToJsonMapping(encodeTracesProtobuf(batch, resource))));
    expect(decoded.map((s) => [s.attributes.n, (s.attributes.text as string).length])).toEqual(batch.map((_, i) => [i, i]));
    // bytes written by hand from the .proto files, independent of the decoder above
    const bytes = Buffer.from(encodeTracesProtobuf([{ ...span(3), kind: SpanKind.client, attributes: { a: 1 } }], resource));
    const has = (...b: number[]) => bytes.includes(Buffer.from(b));
    expect(has(0x0a, 0x10, ...Uint8Array.fromHex("0af7651916cd43dd8448eb211c80319c"))).toBe(true); // trace_id = 1, 16 bytes
    expect(has(0x12, 0x08, 0, 0, 0, 0, 0, 0, 0, 3)).toBe(true); // span_id = 2
    expect(has(0x30, 0x03)).toBe(true); // kind = 6: SPAN_KIND_CLIENT
    expect(has(0x4a, 0x07, 0x0a, 0x01, 0x61, 0x12, 0x02, 0x18, 0x01)).toBe(true); // attributes = 9: { key "a", value { int_value 1 } }
    const start = Buffer.alloc(9);
    start[0] = 0x39; // start_time_unix_nano = 7, fixed64 little-endian
    start.writeBigUInt64LE(1_700_000_000_000_250_000n, 1);
    expect(bytes.includes(start)).toBe(true);
  });

  test("nanoseconds keep the fraction of a millisecond", () => {
    expect(unixNano(1)).toBe("1000000");
    expect(unixNano(1_764_900_000_123.456)).toMatch(/^1764900000123456\d{3}$/);
  });
});

describe("traceparent", () => {
  test("a valid header is read; invalid ones start a trace of their own", () => {
    const header = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const context = parseTraceparent(header)!;
    expect(context).toEqual({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", sampled: true });
    expect(formatTraceparent(context)).toBe(header);
    expect(parseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")!.sampled).toBe(false);
    for (const bad of [
      "",
      "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
      "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
    ]) {
      expect(parseTraceparent(bad)).toBeNull();
    }
    // a later version may carry more fields: its first four are read
    expect(parseTraceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-more")?.spanId).toBe("00f067aa0ba902b7");
  });
});

describe("the export queue", () => {
  test(`holds ${TELEMETRY_QUEUE_MAX_SPANS} spans; the next one is dropped and counted`, async () => {
    const before = receiver.spans().length;
    const sink = exporter();
    for (let i = 0; i < TELEMETRY_QUEUE_MAX_SPANS; i++) sink.enqueue(span(i));
    expect(sink.stats()).toMatchObject({ queued: TELEMETRY_QUEUE_MAX_SPANS, droppedQueueFull: 0 });
    sink.enqueue(span(TELEMETRY_QUEUE_MAX_SPANS));
    expect(sink.stats()).toMatchObject({ queued: TELEMETRY_QUEUE_MAX_SPANS, droppedQueueFull: 1 });
    await sink.close();
    expect(sink.stats()).toEqual({ exported: TELEMETRY_QUEUE_MAX_SPANS, droppedQueueFull: 1, droppedExportFailed: 0, queued: 0 });
    expect(receiver.spans().length - before).toBe(TELEMETRY_QUEUE_MAX_SPANS);
    expect(receiver.invalid()).toEqual([]);
  });

  test(`a full batch (${TELEMETRY_BATCH_MAX_SPANS} spans) is sent without waiting for the timer`, async () => {
    const sink = exporter();
    for (let i = 0; i < TELEMETRY_BATCH_MAX_SPANS - 1; i++) sink.enqueue(span(i));
    await Bun.sleep(0);
    expect(sink.stats().queued).toBe(TELEMETRY_BATCH_MAX_SPANS - 1);
    sink.enqueue(span(TELEMETRY_BATCH_MAX_SPANS));
    await waitFor(() => sink.stats().exported === TELEMETRY_BATCH_MAX_SPANS, "the full batch to be sent");
    await sink.close();
  });

  test("http/protobuf: the receiver decodes the same spans", async () => {
    const before = receiver.spans().length;
    const sink = exporter(undefined, { encoding: "protobuf" });
    for (let i = 0; i < 3; i++) sink.enqueue(span(i));
    await sink.flush();
    expect(sink.stats()).toMatchObject({ exported: 3, droppedExportFailed: 0 });
    expect(receiver.encodings().at(-1)).toBe("protobuf");
    expect(receiver.spans().slice(before).map((s) => [s.name, s.attributes.n, s.startNs])).toEqual([0, 1, 2].map((i) => [`span ${i}`, i, 1_700_000_000_000_250_000n]));
    await sink.close();
  });

  test("a receiver that is down: the spans count as dropped, nothing throws", async () => {
    const down = Bun.serve({ port: 0, fetch: () => new Response() });
    const url = `http://127.0.0.1:${down.port}/v1/traces`;
    await down.stop(true);
    const sink = exporter(url);
    sink.enqueue(span(1));
    sink.enqueue(span(2));
    await sink.flush();
    expect(sink.stats()).toEqual({ exported: 0, droppedQueueFull: 0, droppedExportFailed: 2, queued: 0 });
    await sink.close();
  });

  test("a refusal (503) and rejected spans (partialSuccess) count as dropped", async () => {
    const sink = exporter();
    receiver.setMode({ kind: "status", status: 503 });
    sink.enqueue(span(1));
    await sink.flush();
    expect(sink.stats().droppedExportFailed).toBe(1);
    receiver.setMode({ kind: "reject", spans: 2 });
    for (let i = 0; i < 5; i++) sink.enqueue(span(i));
    await sink.flush();
    expect(sink.stats()).toMatchObject({ exported: 3, droppedExportFailed: 3 });
    receiver.setMode({ kind: "ok" });
    await sink.close();
  });

  test("a receiver that never answers: spans keep queueing while one request is held, the request times out, closing is bounded", async () => {
    receiver.setMode({ kind: "hang" });
    const sink = exporter(undefined, { timeoutMs: 200, closeTimeoutMs: 50 });
    sink.enqueue(span(1));
    const flushing = sink.flush();
    await waitFor(() => receiver.held() === 1, "the receiver to hold the request");
    // enqueueing never waits for the receiver
    sink.enqueue(span(2));
    expect(sink.stats().queued).toBe(1);
    await flushing;
    expect(sink.stats().droppedExportFailed).toBe(1);
    // closing does not wait past its bound for the request still held; that request counts once it times out
    await sink.close();
    expect(sink.stats().queued).toBe(0);
    await waitFor(() => sink.stats().droppedExportFailed === 2, "the held request to time out");
    receiver.release();
    expect(sink.stats().exported).toBe(0);
  });
});

describe("the tracer", () => {
  test("children share the trace and name their parent; the active span carries over awaits", async () => {
    const ended: FinishedSpan[] = [];
    const sink = { enqueue: (s: FinishedSpan) => void ended.push(s), stats: () => ({ exported: 0, droppedQueueFull: 0, droppedExportFailed: 0, queued: 0 }), close: async () => {} };
    const tracer: Tracer = new RecordingTracer({ sink, sampleRatio: 1 });
    const root = tracer.startSpan("root");
    await tracer.withSpan(root, async () => {
      await Bun.sleep(0);
      await inChildSpan("child", { attributes: { a: 1 } }, async () => {
        await Bun.sleep(0);
      });
      await inChildSpan("failing", {}, async () => {
        throw new Error("boom");
      }).catch(() => undefined);
    });
    root.end();
    root.end();
    expect(ended.map((s) => s.name)).toEqual(["child", "failing", "root"]);
    const [child, failing, top] = ended as [FinishedSpan, FinishedSpan, FinishedSpan];
    expect(top.parentSpanId).toBeUndefined();
    expect(child.traceId).toBe(top.traceId);
    expect(child.parentSpanId).toBe(top.spanId);
    expect(failing.error).toBe("boom");
    expect(failing.attributes["error.type"]).toBe("Error");
    // outside any span: no span is started
    expect(await inChildSpan("orphan", {}, async () => 7)).toBe(7);
    expect(ended).toHaveLength(3);
  });

  test("sample_ratio 0 records no new trace; a sampled caller's trace is recorded anyway", () => {
    const ended: FinishedSpan[] = [];
    const sink = { enqueue: (s: FinishedSpan) => void ended.push(s), stats: () => ({ exported: 0, droppedQueueFull: 0, droppedExportFailed: 0, queued: 0 }), close: async () => {} };
    const tracer = new RecordingTracer({ sink, sampleRatio: 0 });
    const unsampled = tracer.startSpan("root");
    tracer.startSpan("child", { parent: unsampled.context }).end();
    unsampled.end();
    expect(ended).toEqual([]);
    tracer.startSpan("continued", { parent: parseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01") }).end();
    expect(ended.map((s) => [s.name, s.traceId, s.parentSpanId])).toEqual([["continued", "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"]]);
  });

  test("the receiver probe (prx doctor): an empty export in either encoding; a receiver that is down, or a missing header variable, is named", async () => {
    const signal = () => AbortSignal.timeout(5000);
    const json = TelemetrySchema.parse({ otlp_endpoint: receiver.url });
    expect(await probeReceiver(json, {}, signal())).toBeNull();
    expect(await probeReceiver({ ...json, protocol: "http/protobuf" }, {}, signal())).toBeNull();
    expect(receiver.encodings().slice(-2)).toEqual(["json", "protobuf"]);
    const down = Bun.serve({ port: 0, fetch: () => new Response() });
    const url = `http://127.0.0.1:${down.port}`;
    await down.stop(true);
    expect(await probeReceiver(TelemetrySchema.parse({ otlp_endpoint: url }), {}, signal())).toStartWith(`${url}/v1/traces: `);
    expect(await probeReceiver(TelemetrySchema.parse({ otlp_endpoint: receiver.url, headers: { authorization: "OTLP_UNSET" } }), {}, signal())).toContain("OTLP_UNSET");
    expect(await probeReceiver(TelemetrySchema.parse({}), {}, signal())).toBeNull();
  });

  test("the traces URL: /v1/traces after the endpoint, unless the endpoint already names it", () => {
    expect(tracesUrl("http://127.0.0.1:4318")).toBe("http://127.0.0.1:4318/v1/traces");
    expect(tracesUrl("https://otel.example.com/otlp/")).toBe("https://otel.example.com/otlp/v1/traces");
    expect(tracesUrl("http://127.0.0.1:4318/v1/traces")).toBe("http://127.0.0.1:4318/v1/traces");
  });

  test("off by default: the no-op tracer; headers come from the environment, an unset one is an error at start", async () => {
    expect((await openTracer(TelemetrySchema.parse({}), {})).enabled).toBe(false);
    const config = TelemetrySchema.parse({ otlp_endpoint: `${receiver.url}/`, headers: { authorization: "OTLP_TEST_AUTH" } });
    await expect(openTracer(config, {})).rejects.toThrow(/OTLP_TEST_AUTH, which is not set/);
    const tracer = await openTracer(config, { OTLP_TEST_AUTH: "Bearer t0ken" });
    const requests = receiver.headers().length;
    tracer.startSpan("with auth").end();
    await tracer.close();
    expect(receiver.headers().slice(requests).map((h) => h.authorization)).toEqual(["Bearer t0ken"]);
    expect(tracer.stats().exported).toBe(1);
  });
});
