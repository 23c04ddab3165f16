import { nanosOf, type OtlpResource } from "./otlp-json.ts";
import type { AttributeValue, Attributes, FinishedSpan } from "./types.ts";

/**
 * The OTLP/HTTP protobuf encoding of an ExportTraceServiceRequest (opentelemetry-proto, trace/v1/trace.proto and
 * common/v1/common.proto), written by hand for this one message: proto3 wire format, field numbers as the .proto
 * files give them, defaults left out.
 */

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LEN = 2;

const utf8 = new TextEncoder();

class Writer {
  private bytes = new Uint8Array(4096);
  private view = new DataView(this.bytes.buffer);
  private length = 0;

  private room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.length + n) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }

  private byte(b: number): void {
    this.room(1);
    this.bytes[this.length++] = b;
  }

  /** A non-negative safe integer as a number; anything else (a negative int64) through BigInt, two's complement. */
  varint(value: number | bigint): void {
    if (typeof value === "number" && value >= 0) {
      let v = value;
      while (v > 0x7f) {
        this.byte((v % 0x80) | 0x80);
        v = Math.floor(v / 0x80);
      }
      this.byte(v);
      return;
    }
    let v = BigInt.asUintN(64, BigInt(value));
    while (v > 0x7fn) {
      this.byte(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.byte(Number(v));
  }

  tag(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }

  raw(data: Uint8Array): void {
    this.room(data.length);
    this.bytes.set(data, this.length);
    this.length += data.length;
  }

  /** A length-delimited field: bytes, a string or a nested message. */
  len(field: number, data: Uint8Array): void {
    this.tag(field, WIRE_LEN);
    this.varint(data.length);
    this.raw(data);
  }

  /** A string field, written even when empty (a oneof member). */
  text(field: number, value: string): void {
    this.tag(field, WIRE_LEN);
    this.nested(() => {
      this.room(value.length * 3);
      this.length += utf8.encodeInto(value, this.bytes.subarray(this.length)).written;
    });
  }

  string(field: number, value: string): void {
    if (value !== "") this.text(field, value);
  }

  message(field: number, write: (w: Writer) => void): void {
    this.tag(field, WIRE_LEN);
    this.nested(() => write(this));
  }

  /** Written in place after one byte kept for its length, moved along when the length needs more. */
  private nested(write: () => void): void {
    this.room(1);
    const at = this.length++;
    write();
    const size = this.length - at - 1;
    if (size < 0x80) {
      this.bytes[at] = size;
      return;
    }
    let extra = 0;
    for (let v = size >>> 7; v > 0x7f; v >>>= 7) extra++;
    extra++;
    this.room(extra);
    this.bytes.copyWithin(at + 1 + extra, at + 1, this.length);
    const end = this.length + extra;
    this.length = at;
    this.varint(size);
    this.length = end;
  }

  uint(field: number, value: number): void {
    if (value === 0) return;
    this.tag(field, WIRE_VARINT);
    this.varint(value);
  }

  fixed64(field: number, value: bigint): void {
    this.tag(field, WIRE_FIXED64);
    this.room(8);
    this.view.setBigUint64(this.length, value, true);
    this.length += 8;
  }

  double(field: number, value: number): void {
    this.tag(field, WIRE_FIXED64);
    this.room(8);
    this.view.setFloat64(this.length, value, true);
    this.length += 8;
  }

  done(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

// AnyValue: string_value 1, bool_value 2, int_value 3, double_value 4, array_value 5
function anyValue(w: Writer, value: AttributeValue): void {
  if (typeof value === "string") w.text(1, value);
  else if (typeof value === "boolean") {
    w.tag(2, WIRE_VARINT);
    w.varint(value ? 1 : 0);
  } else if (typeof value === "object") w.message(5, (array) => value.forEach((item) => array.message(1, (v) => v.text(1, item))));
  else if (Number.isSafeInteger(value)) {
    w.tag(3, WIRE_VARINT);
    w.varint(value);
  } else w.double(4, value);
}

// KeyValue: key 1, value 2
function keyValues(w: Writer, field: number, attributes: Attributes): void {
  for (const key in attributes) {
    const value = attributes[key];
    if (value === undefined) continue;
    w.message(field, (kv) => {
      kv.string(1, key);
      kv.message(2, (v) => anyValue(v, value));
    });
  }
}

// Span: trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6, start 7, end 8, attributes 9, status 15
function span(w: Writer, s: FinishedSpan): void {
  w.len(1, Uint8Array.fromHex(s.traceId));
  w.len(2, Uint8Array.fromHex(s.spanId));
  if (s.parentSpanId) w.len(4, Uint8Array.fromHex(s.parentSpanId));
  w.string(5, s.name);
  w.uint(6, s.kind);
  w.fixed64(7, nanosOf(s.startMs));
  w.fixed64(8, nanosOf(s.endMs));
  keyValues(w, 9, s.attributes);
  // Status: message 2, code 3 (STATUS_CODE_ERROR 2)
  if (s.error !== undefined) {
    const message = s.error;
    w.message(15, (status) => {
      status.string(2, message);
      status.uint(3, 2);
    });
  }
}

/** ExportTraceServiceRequest: resource_spans 1 { resource 1 { attributes 1 }, scope_spans 2 { scope 1 { name 1, version 2 }, spans 2 } }. */
export function encodeTracesProtobuf(spans: readonly FinishedSpan[], resource: OtlpResource): Uint8Array {
  const request = new Writer();
  request.message(1, (resourceSpans) => {
    resourceSpans.message(1, (r) => keyValues(r, 1, { "service.name": resource.serviceName, "telemetry.sdk.name": "prx", "telemetry.sdk.language": "nodejs" }));
    resourceSpans.message(2, (scopeSpans) => {
      scopeSpans.message(1, (scope) => {
        scope.string(1, resource.scopeName);
        if (resource.scopeVersion !== undefined) scope.string(2, resource.scopeVersion);
      });
      for (const s of spans) scopeSpans.message(2, (w) => span(w, s));
    });
  });
  return request.done();
}
