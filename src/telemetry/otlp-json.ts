import type { AttributeValue, Attributes, FinishedSpan } from "./types.ts";

/**
 * The OTLP/JSON encoding of an ExportTraceServiceRequest (opentelemetry-proto's JSON mapping): lowerCamelCase field
 * names, trace and span ids as hex (not base64), enums as integers, 64-bit integers as decimal strings.
 */
export interface OtlpResource {
  serviceName: string;
  scopeName: string;
  scopeVersion?: string;
}

type AnyValue =
  | { stringValue: string }
  | { intValue: string }
  | { doubleValue: number }
  | { boolValue: boolean }
  | { arrayValue: { values: Array<{ stringValue: string }> } };

function anyValue(value: AttributeValue): AnyValue {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "object") return { arrayValue: { values: value.map((item) => ({ stringValue: item })) } };
  if (typeof value === "boolean") return { boolValue: value };
  return Number.isSafeInteger(value) ? { intValue: String(value) } : { doubleValue: value };
}

function keyValues(attributes: Attributes): Array<{ key: string; value: AnyValue }> {
  const list: Array<{ key: string; value: AnyValue }> = [];
  for (const key in attributes) {
    const value = attributes[key];
    if (value !== undefined) list.push({ key, value: anyValue(value) });
  }
  return list;
}

/** Epoch milliseconds (with a fraction) as the fixed64 nanoseconds OTLP wants. */
export function nanosOf(ms: number): bigint {
  const whole = Math.floor(ms);
  return BigInt(whole) * 1_000_000n + BigInt(Math.round((ms - whole) * 1e6));
}

/** The same as a decimal string (JSON's form of a 64-bit integer). */
export function unixNano(ms: number): string {
  return nanosOf(ms).toString();
}

// Status.StatusCode: STATUS_CODE_UNSET 0, STATUS_CODE_OK 1, STATUS_CODE_ERROR 2
const STATUS_ERROR = 2;

export function encodeTraces(spans: readonly FinishedSpan[], resource: OtlpResource): string {
  const scope = resource.scopeVersion === undefined ? { name: resource.scopeName } : { name: resource.scopeName, version: resource.scopeVersion };
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: keyValues({ "service.name": resource.serviceName, "telemetry.sdk.name": "prx", "telemetry.sdk.language": "nodejs" }) },
        scopeSpans: [
          {
            scope,
            spans: spans.map((span) => ({
              traceId: span.traceId,
              spanId: span.spanId,
              ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
              name: span.name,
              kind: span.kind,
              startTimeUnixNano: unixNano(span.startMs),
              endTimeUnixNano: unixNano(span.endMs),
              attributes: keyValues(span.attributes),
              status: span.error === undefined ? {} : { code: STATUS_ERROR, message: span.error },
            })),
          },
        ],
      },
    ],
  });
}
