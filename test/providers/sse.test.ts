import { describe, expect, test } from "bun:test";
import { isPrxError, PrxError } from "../../src/core/errors.ts";
import { MAX_JSON_DEPTH } from "../../src/core/json/index.ts";
import { PROVIDER_MAX_RESPONSE_BYTES, readSseEvents, SSE_MAX_EVENT_BYTES, readSseJson, readSseJsonReads } from "../../src/providers/sse.ts";
import type { SseEvent } from "../../src/providers/sse-parser.ts";

function streamOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i >= chunks.length) return controller.close();
      const chunk = chunks[i++]!;
      controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
    },
  });
}

async function collect(chunks: (string | Uint8Array)[], maxEventBytes?: number): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of readSseEvents(streamOf(chunks), { provider: "test", maxEventBytes })) events.push(event);
  return events;
}

async function caught(run: () => Promise<unknown>): Promise<PrxError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof PrxError) return error;
    throw error;
  }
  throw new Error("expected a PrxError");
}

describe("readSseEvents", () => {
  test("data, event names, comments, multi-line data and CRLF/CR line ends", async () => {
    const events = await collect([
      ": keep-alive comment\n\n",
      "event: message_start\r\ndata: {\"a\":1}\r\n\r\n",
      "data: line one\ndata:line two\n\n",
      "event: ping\rdata: {}\r\r",
    ]);
    expect(events).toEqual([
      { event: "message_start", data: '{"a":1}' },
      { data: "line one\nline two" },
      { event: "ping", data: "{}" },
    ]);
  });

  test("lines and CRLF pairs split across chunks", async () => {
    const events = await collect(["da", "ta: hel", "lo\r", "\n\r", "\ndata: x\n", "\n"]);
    expect(events).toEqual([{ data: "hello" }, { data: "x" }]);
  });

  test("a multibyte UTF-8 character split across two chunks is decoded intact", async () => {
    const bytes = new TextEncoder().encode("data: héllo 🌍\n\n");
    const globe = bytes.indexOf(0xf0);
    const events = await collect([bytes.subarray(0, 8), bytes.subarray(8, globe + 2), bytes.subarray(globe + 2)]);
    expect(events).toEqual([{ data: "héllo 🌍" }]);
  });

  test("a pending event without the final blank line is still dispatched", async () => {
    expect(await collect(["data: last"])).toEqual([{ data: "last" }]);
  });

  test("a line: exactly the cap passes, one byte more fails, even before its end arrives", async () => {
    const line = `data: ${"é".repeat(5)}`; // 16 bytes
    const size = new TextEncoder().encode(line).length;
    expect(await collect([line + "\n\n"], size)).toEqual([{ data: "ééééé" }]);
    const error = await caught(() => collect([line + "\n\n"], size - 1));
    expect(error.code).toBe("PROVIDER_RESPONSE_TOO_LARGE");
    expect(error.message).toContain("test: a streamed line exceeded 15 bytes");
    // a line that never ends is refused as soon as it passes the cap
    expect((await caught(() => collect([line, "x"], size))).message).toContain("a streamed line exceeded");
  });

  test("an event's data: exactly the cap passes, one byte more fails", async () => {
    const twoLines = "data:12345\ndata:12345\n\n"; // lines of 10 bytes; data "12345\n12345": 11 bytes
    expect(await collect([twoLines], 11)).toEqual([{ data: "12345\n12345" }]);
    const error = await caught(() => collect([twoLines], 10));
    expect(error.message).toContain("a streamed event exceeded 10 bytes");
  });

  test("any split of the bytes into chunks gives the same events as the whole", async () => {
    const text = ': hi\r\nevent: a\r\ndata: {"x":"é🌍"}\r\n\r\ndata: one\rdata:two\r\rdata\nevent\ndata: last\n\n';
    const bytes = new TextEncoder().encode(text);
    const whole = await collect([bytes]);
    expect(whole).toEqual([
      { event: "a", data: '{"x":"é🌍"}' },
      { data: "one\ntwo" },
      { event: "", data: "\nlast" },
    ]);
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(await collect([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(whole);
    }
    expect(await collect(Array.from(bytes, (byte) => Uint8Array.of(byte)))).toEqual(whole);
  });

  test("multibyte data over several lines: the event cap counts exact UTF-8 bytes at the boundary", async () => {
    const threeLines = "data:éé\ndata:éé\ndata:éé\n\n"; // lines of 9 bytes; data "éé\néé\néé": 14 bytes
    expect(await collect([threeLines], 14)).toEqual([{ data: "éé\néé\néé" }]);
    expect((await caught(() => collect([threeLines], 13))).message).toContain("a streamed event exceeded 13 bytes");
    expect(await collect(["data:éé\ndata:éé\n\n"], 9)).toEqual([{ data: "éé\néé" }]);
    expect((await caught(() => collect(["data:éé\ndata:éé\n\n"], 8))).message).toContain("a streamed line exceeded 8 bytes");
  });

  test("the total is not capped: many events, each within the cap, all arrive", async () => {
    const events = Array.from({ length: 200 }, (_, i) => `data: ${String(i).padStart(8, "0")}\n\n`);
    expect((await collect(events, 16)).length).toBe(200);
  });

  test(`the default: a line of exactly SSE_MAX_EVENT_BYTES passes, one byte more fails`, async () => {
    const line = (bytes: number) => `data: ${"x".repeat(bytes - 6)}\n\n`;
    expect((await collect([line(SSE_MAX_EVENT_BYTES)]))[0]!.data.length).toBe(SSE_MAX_EVENT_BYTES - 6);
    expect((await caught(() => collect([line(SSE_MAX_EVENT_BYTES + 1)]))).code).toBe("PROVIDER_RESPONSE_TOO_LARGE");
  });

  test("the default caps: 8 MiB for a whole answer, 1 MiB for a streamed event", () => {
    expect(PROVIDER_MAX_RESPONSE_BYTES).toBe(8 * 1024 * 1024);
    expect(SSE_MAX_EVENT_BYTES).toBe(1024 * 1024);
  });
});

describe("readSseJson", () => {
  test("parses JSON payloads and stops at [DONE]", async () => {
    const seen: unknown[] = [];
    const stream = streamOf(['data: {"n":1}\n\n', "data: [DONE]\n\n", 'data: {"n":2}\n\n']);
    for await (const item of readSseJson(stream, { provider: "p" })) seen.push(item.json);
    expect(seen).toEqual([{ n: 1 }]);
  });

  test("[DONE] before the body ends cancels the rest of the upstream body", async () => {
    let cancelled = false;
    const chunks = ['data: {"n":1}\n\ndata: [DONE]\n\n', 'data: {"n":2}\n\n'];
    let i = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (i >= chunks.length) return controller.close();
        controller.enqueue(new TextEncoder().encode(chunks[i++]!));
      },
      cancel() {
        cancelled = true;
      },
    });
    const seen: unknown[] = [];
    for await (const item of readSseJson(body, { provider: "p" })) seen.push(item.json);
    expect(seen).toEqual([{ n: 1 }]);
    expect(cancelled).toBe(true);
  });

  test("event names, blank payloads and whitespace around the JSON", async () => {
    const seen: unknown[] = [];
    const stream = streamOf(['event: delta\ndata:  {"n":1} \n\n', "data: \n\n", 'data: {"n":2}']);
    for await (const item of readSseJson(stream, { provider: "p" })) seen.push(item);
    expect(seen).toEqual([{ event: "delta", json: { n: 1 } }, { json: { n: 2 } }]);
  });

  test("malformed JSON names the provider and quotes the line, truncated", async () => {
    const long = `{"broken": "${"z".repeat(500)}`;
    const error = await caught(async () => {
      for await (const _ of readSseJson(streamOf([`data: ${long}\n\n`]), { provider: "acme" })) void _;
    });
    expect(isPrxError(error, "PROVIDER_PROTOCOL")).toBe(true);
    expect(error.message).toContain("acme");
    expect(error.message).toContain('{"broken"');
    expect(error.message.length).toBeLessThan(300);
  });

  test(`an event nested ${MAX_JSON_DEPTH} levels is read; one level more is a protocol error naming the limit`, async () => {
    const event = (depth: number) => `data: {"d":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}\n\n`;
    const seen: unknown[] = [];
    for await (const item of readSseJson(streamOf([event(MAX_JSON_DEPTH)]), { provider: "p" })) seen.push(item.json);
    expect(seen).toHaveLength(1);
    const error = await caught(async () => {
      for await (const _ of readSseJson(streamOf([event(MAX_JSON_DEPTH + 1)]), { provider: "acme" })) void _;
    });
    expect(isPrxError(error, "PROVIDER_PROTOCOL")).toBe(true);
    expect(error.message).toBe(`acme: stream event: JSON nesting deeper than ${MAX_JSON_DEPTH} levels at character ${MAX_JSON_DEPTH + 4}`);
  });

  test("brackets inside strings, however many, do not count as nesting", async () => {
    const event = `data: {"code":"${"{[".repeat(MAX_JSON_DEPTH)}","d":[[1]]}\n\n`;
    const seen: unknown[] = [];
    for await (const item of readSseJson(streamOf([event]), { provider: "p" })) seen.push(item.json);
    expect(seen).toEqual([{ code: "{[".repeat(MAX_JSON_DEPTH), d: [[1]] }]);
  });

  test(`a deep event is refused even when it is the last of many in one chunk, after the ones before it`, async () => {
    const deep = `data: ${"[".repeat(MAX_JSON_DEPTH + 1)}${"]".repeat(MAX_JSON_DEPTH + 1)}\n\n`;
    const seen: unknown[] = [];
    const error = await caught(async () => {
      for await (const item of readSseJson(streamOf([`data: {"n":1}\n\n${deep}`]), { provider: "acme" })) seen.push(item.json);
    });
    expect(seen).toEqual([{ n: 1 }]);
    expect(error.code).toBe("PROVIDER_PROTOCOL");
    expect(error.message).toBe(`acme: stream event: JSON nesting deeper than ${MAX_JSON_DEPTH} levels at character ${MAX_JSON_DEPTH}`);
  });
});

describe("readSseJsonReads", () => {
  test("the events of each read come together, in order; a read with none yields nothing", async () => {
    const reads: unknown[][] = [];
    const stream = streamOf(['data: {"n":1}\n\ndata: {"n":2}\n\ndata: {"n', '":3}\n\n', ": a comment only\n\n", 'data: {"n":4}\n\ndata: [DONE]\n\ndata: {"n":5}\n\n']);
    for await (const read of readSseJsonReads(stream, { provider: "p" })) reads.push(read.map((item) => item.json));
    expect(reads).toEqual([[{ n: 1 }, { n: 2 }], [{ n: 3 }], [{ n: 4 }]]);
  });

  test("a bad event fails the stream after the events of its read before it are handed on", async () => {
    const reads: unknown[][] = [];
    const error = await caught(async () => {
      for await (const read of readSseJsonReads(streamOf(['data: {"n":1}\n\ndata: {broken\n\ndata: {"n":2}\n\n']), { provider: "acme" })) {
        reads.push(read.map((item) => item.json));
      }
    });
    expect(reads).toEqual([[{ n: 1 }]]);
    expect(isPrxError(error, "PROVIDER_PROTOCOL")).toBe(true);
  });
});
