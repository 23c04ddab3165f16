/**
 * An OTLP/HTTP trace receiver as the OpenTelemetry protocol specification defines it (opentelemetry-proto,
 * docs/specification.md "OTLP/HTTP" and "JSON Protobuf Encoding"): POST /v1/traces with Content-Type
 * application/json carrying an ExportTraceServiceRequest in the protobuf JSON mapping (lowerCamelCase field names,
 * trace and span ids as hex, enums as integers, 64-bit integers as decimal strings or numbers), answered 200 with an
 * ExportTraceServiceResponse; or the same request in the protobuf encoding (application/x-protobuf), decoded from
 * the wire format into that JSON mapping and checked the same way. Anything that does not decode is a 400.
 */
import { z } from "zod";
import { protobufToJsonMapping } from "./otlp-protobuf.ts";

const Hex = (bytes: number) => z.string().regex(new RegExp(`^[0-9a-f]{${bytes * 2}}$`), `${bytes} bytes as lowercase hex`);
/** int64 / fixed64 in the JSON mapping: a decimal string (or a number, which parsers accept too). */
const Int64 = z.union([z.string().regex(/^-?\d+$/), z.number().int()]);

type AnyValueT =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string | number }
  | { doubleValue: number }
  | { bytesValue: string }
  | { arrayValue: { values?: AnyValueT[] } }
  | { kvlistValue: { values?: Array<{ key: string; value: AnyValueT }> } };

/** AnyValue: a oneof, so exactly one member. */
export const AnyValueSchema: z.ZodType<AnyValueT> = z.lazy(() =>
  z.union([
    z.strictObject({ stringValue: z.string() }),
    z.strictObject({ boolValue: z.boolean() }),
    z.strictObject({ intValue: Int64 }),
    z.strictObject({ doubleValue: z.number() }),
    z.strictObject({ bytesValue: z.string() }),
    z.strictObject({ arrayValue: z.strictObject({ values: z.array(AnyValueSchema).optional() }) }),
    z.strictObject({ kvlistValue: z.strictObject({ values: z.array(KeyValueSchema).optional() }) }),
  ]),
);
export const KeyValueSchema: z.ZodType<{ key: string; value: AnyValueT }> = z.lazy(() => z.strictObject({ key: z.string(), value: AnyValueSchema }));

export const SpanSchema = z.strictObject({
  traceId: Hex(16),
  spanId: Hex(8),
  traceState: z.string().optional(),
  parentSpanId: z.union([Hex(8), z.literal("")]).optional(),
  flags: z.number().int().optional(),
  name: z.string().min(1),
  // SPAN_KIND_UNSPECIFIED 0 .. SPAN_KIND_CONSUMER 5
  kind: z.number().int().min(0).max(5).optional(),
  startTimeUnixNano: Int64,
  endTimeUnixNano: Int64,
  attributes: z.array(KeyValueSchema).optional(),
  droppedAttributesCount: z.number().int().optional(),
  events: z.array(z.unknown()).optional(),
  droppedEventsCount: z.number().int().optional(),
  links: z.array(z.unknown()).optional(),
  droppedLinksCount: z.number().int().optional(),
  // STATUS_CODE_UNSET 0, OK 1, ERROR 2
  status: z.strictObject({ message: z.string().optional(), code: z.number().int().min(0).max(2).optional() }).optional(),
});

export const ExportTraceServiceRequestSchema = z.strictObject({
  resourceSpans: z.array(
    z.strictObject({
      resource: z.strictObject({ attributes: z.array(KeyValueSchema).optional(), droppedAttributesCount: z.number().int().optional() }).optional(),
      scopeSpans: z.array(
        z.strictObject({
          scope: z
            .strictObject({
              name: z.string().optional(),
              version: z.string().optional(),
              attributes: z.array(KeyValueSchema).optional(),
              droppedAttributesCount: z.number().int().optional(),
            })
            .optional(),
          spans: z.array(SpanSchema).optional(),
          schemaUrl: z.string().optional(),
        }),
      ),
      schemaUrl: z.string().optional(),
    }),
  ),
});

export type OtlpSpan = z.infer<typeof SpanSchema>;

/** A decoded span with its attributes as plain values (ints as numbers) and its resource's attributes. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
  scope: string | undefined;
  status: { code: number; message?: string };
}

function plain(value: AnyValueT): unknown {
  if ("stringValue" in value) return value.stringValue;
  if ("boolValue" in value) return value.boolValue;
  if ("intValue" in value) return Number(value.intValue);
  if ("doubleValue" in value) return value.doubleValue;
  if ("bytesValue" in value) return value.bytesValue;
  if ("arrayValue" in value) return (value.arrayValue.values ?? []).map(plain);
  return Object.fromEntries((value.kvlistValue.values ?? []).map((kv) => [kv.key, plain(kv.value)]));
}

const record = (list: Array<{ key: string; value: AnyValueT }> | undefined) => Object.fromEntries((list ?? []).map((kv) => [kv.key, plain(kv.value)]));

/** Every span of a decoded request, flattened. */
export function decodeSpans(request: z.infer<typeof ExportTraceServiceRequestSchema>): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const rs of request.resourceSpans) {
    const resource = record(rs.resource?.attributes);
    for (const ss of rs.scopeSpans) {
      for (const span of ss.spans ?? []) {
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ? span.parentSpanId : null,
          name: span.name,
          kind: span.kind ?? 0,
          startNs: BigInt(span.startTimeUnixNano),
          endNs: BigInt(span.endTimeUnixNano),
          attributes: record(span.attributes),
          resource,
          scope: ss.scope?.name,
          status: { code: span.status?.code ?? 0, ...(span.status?.message !== undefined ? { message: span.status.message } : {}) },
        });
      }
    }
  }
  return spans;
}

/** How the receiver answers: accept, hold every request unanswered until released, refuse with a status, or reject spans. */
export type ReceiverMode = { kind: "ok" } | { kind: "hang" } | { kind: "status"; status: number } | { kind: "reject"; spans: number };

export interface OtlpReceiver {
  url: string;
  /** Spans received and decoded so far. */
  spans(): ReceivedSpan[];
  /** Every request's headers, in order. */
  headers(): Array<Record<string, string>>;
  /** Requests that did not decode (the reasons, in order). */
  invalid(): string[];
  /** The encoding of each request that decoded, in order. */
  encodings(): Array<"json" | "protobuf">;
  /** Requests held unanswered now (mode "hang"). */
  held(): number;
  setMode(mode: ReceiverMode): void;
  /** Answer every held request (200) and stop holding. */
  release(): void;
  stop(): Promise<void>;
}

export function startOtlpReceiver(mode: ReceiverMode = { kind: "ok" }): OtlpReceiver {
  let current = mode;
  const spans: ReceivedSpan[] = [];
  const headers: Array<Record<string, string>> = [];
  const invalid: string[] = [];
  const encodings: Array<"json" | "protobuf"> = [];
  let holding: Array<() => void> = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (url.pathname !== "/v1/traces") return new Response("not found", { status: 404 });
      if (request.method !== "POST") return new Response("method not allowed", { status: 405 });
      headers.push(Object.fromEntries(request.headers));
      const type = request.headers.get("content-type") ?? "";
      const protobuf = /^application\/x-protobuf\b/.test(type);
      if (!protobuf && !/^application\/json\b/.test(type)) return new Response(`unsupported content type ${type}`, { status: 415 });
      let body: unknown;
      try {
        body = protobuf ? protobufToJsonMapping(new Uint8Array(await request.arrayBuffer())) : JSON.parse(await request.text());
      } catch (error) {
        invalid.push(`not ${protobuf ? "protobuf" : "JSON"}: ${(error as Error).message}`);
        return Response.json({ code: 3, message: "body does not decode" }, { status: 400 });
      }
      encodings.push(protobuf ? "protobuf" : "json");
      const parsed = ExportTraceServiceRequestSchema.safeParse(body);
      if (!parsed.success) {
        invalid.push(JSON.stringify(parsed.error.issues.slice(0, 3)));
        return Response.json({ code: 3, message: "not an ExportTraceServiceRequest" }, { status: 400 });
      }
      const mode = current;
      if (mode.kind === "status") return Response.json({ code: 14, message: "unavailable" }, { status: mode.status });
      if (mode.kind === "hang") await new Promise<void>((resolve) => holding.push(resolve));
      spans.push(...decodeSpans(parsed.data));
      // a protobuf client gets an empty ExportTraceServiceResponse (no partial success)
      if (protobuf) return new Response(new Uint8Array(), { headers: { "content-type": "application/x-protobuf" } });
      if (mode.kind === "reject") return Response.json({ partialSuccess: { rejectedSpans: String(mode.spans), errorMessage: "rejected by the test" } });
      return Response.json({});
    },
  });
  const release = () => {
    const waiting = holding;
    holding = [];
    for (const resolve of waiting) resolve();
  };
  return {
    url: `http://127.0.0.1:${server.port}`,
    spans: () => spans,
    headers: () => headers,
    invalid: () => invalid,
    encodings: () => encodings,
    held: () => holding.length,
    setMode: (next) => void (current = next),
    release: () => {
      current = { kind: "ok" };
      release();
    },
    stop: async () => {
      release();
      await server.stop(true);
    },
  };
}
