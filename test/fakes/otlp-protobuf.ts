/**
 * A decoder of the OTLP protobuf encoding of ExportTraceServiceRequest (opentelemetry-proto trace/v1/trace.proto,
 * common/v1/common.proto, resource/v1/resource.proto), written from the .proto files for the fake receiver: it turns
 * the wire format into the protobuf JSON mapping, which the receiver then checks as it checks a JSON request.
 * Unknown fields are skipped, as protobuf parsers do; a malformed message throws.
 */

type Field = { n: number; wire: number; varint?: bigint; bytes?: Uint8Array };

function fields(data: Uint8Array): Field[] {
  const out: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (at >= data.length || shift > 63n) throw new Error("truncated or oversized varint");
      const b = data[at++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
    }
  };
  const take = (n: number): Uint8Array => {
    if (at + n > data.length) throw new Error("truncated field");
    const slice = data.subarray(at, at + n);
    at += n;
    return slice;
  };
  while (at < data.length) {
    const key = Number(varint());
    const n = key >>> 3;
    const wire = key & 7;
    if (n === 0) throw new Error("field number 0");
    if (wire === 0) out.push({ n, wire, varint: varint() });
    else if (wire === 1) out.push({ n, wire, bytes: take(8) });
    else if (wire === 2) out.push({ n, wire, bytes: take(Number(varint())) });
    else if (wire === 5) out.push({ n, wire, bytes: take(4) });
    else throw new Error(`wire type ${wire} is not used by OTLP`);
  }
  return out;
}

const text = new TextDecoder("utf-8", { fatal: true });
const all = (list: Field[], n: number, wire: number) => list.filter((f) => f.n === n && f.wire === wire);
// proto3: the last value of a repeated scalar key wins
const last = (list: Field[], n: number, wire: number) => all(list, n, wire).at(-1);
const str = (list: Field[], n: number) => {
  const f = last(list, n, 2);
  return f ? text.decode(f.bytes) : undefined;
};
const fixed64 = (f: Field) => new DataView(f.bytes!.buffer, f.bytes!.byteOffset, 8).getBigUint64(0, true);
const signed = (v: bigint) => BigInt.asIntN(64, v);

function anyValue(data: Uint8Array): Record<string, unknown> {
  const list = fields(data);
  const f = list.at(-1);
  if (!f) throw new Error("an AnyValue with no value");
  switch (f.n) {
    case 1:
      return { stringValue: text.decode(f.bytes) };
    case 2:
      return { boolValue: f.varint !== 0n };
    case 3:
      return { intValue: signed(f.varint!).toString() };
    case 4:
      return { doubleValue: new DataView(f.bytes!.buffer, f.bytes!.byteOffset, 8).getFloat64(0, true) };
    case 5:
      return { arrayValue: { values: all(fields(f.bytes!), 1, 2).map((v) => anyValue(v.bytes!)) } };
    case 6:
      return { kvlistValue: { values: all(fields(f.bytes!), 1, 2).map((v) => keyValue(v.bytes!)) } };
    case 7:
      return { bytesValue: Buffer.from(f.bytes!).toString("base64") };
    default:
      throw new Error(`AnyValue field ${f.n}`);
  }
}

function keyValue(data: Uint8Array): { key: string; value: Record<string, unknown> } {
  const list = fields(data);
  const value = last(list, 2, 2);
  if (!value) throw new Error("a KeyValue with no value");
  return { key: str(list, 1) ?? "", value: anyValue(value.bytes!) };
}

const hex = (f: Field | undefined) => (f ? f.bytes!.toHex() : undefined);

function span(data: Uint8Array): Record<string, unknown> {
  const list = fields(data);
  const start = last(list, 7, 1);
  const end = last(list, 8, 1);
  const status = last(list, 15, 2);
  const statusFields = status ? fields(status.bytes!) : [];
  const parent = hex(last(list, 4, 2));
  return {
    traceId: hex(last(list, 1, 2)) ?? "",
    spanId: hex(last(list, 2, 2)) ?? "",
    ...(parent ? { parentSpanId: parent } : {}),
    name: str(list, 5) ?? "",
    kind: Number(last(list, 6, 0)?.varint ?? 0n),
    startTimeUnixNano: (start ? fixed64(start) : 0n).toString(),
    endTimeUnixNano: (end ? fixed64(end) : 0n).toString(),
    attributes: all(list, 9, 2).map((f) => keyValue(f.bytes!)),
    ...(status
      ? { status: { ...(str(statusFields, 2) !== undefined ? { message: str(statusFields, 2) } : {}), code: Number(last(statusFields, 3, 0)?.varint ?? 0n) } }
      : {}),
  };
}

/** The request as the protobuf JSON mapping writes it. */
export function protobufToJsonMapping(body: Uint8Array): unknown {
  return {
    resourceSpans: all(fields(body), 1, 2).map((rs) => {
      const list = fields(rs.bytes!);
      const resource = last(list, 1, 2);
      return {
        ...(resource ? { resource: { attributes: all(fields(resource.bytes!), 1, 2).map((f) => keyValue(f.bytes!)) } } : {}),
        scopeSpans: all(list, 2, 2).map((ss) => {
          const scopeList = fields(ss.bytes!);
          const scope = last(scopeList, 1, 2);
          const scopeFields = scope ? fields(scope.bytes!) : [];
          return {
            ...(scope ? { scope: { ...(str(scopeFields, 1) !== undefined ? { name: str(scopeFields, 1) } : {}), ...(str(scopeFields, 2) !== undefined ? { version: str(scopeFields, 2) } : {}) } } : {}),
            spans: all(scopeList, 2, 2).map((f) => span(f.bytes!)),
          };
        }),
      };
    }),
  };
}
