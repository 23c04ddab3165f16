import { describe, expect, test } from "bun:test";
import { SSE_HEADERS_WAIT_MS } from "../../src/gateway/limits.ts";
import { sseResponse } from "../../src/gateway/sse.ts";
import { fakeTimers } from "../helpers/fake-timers.ts";

/** Lets the writes queued so far (flushed on setImmediate) and what they resolve run. */
async function turns(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Keep-alive comments keep proxies from closing a stream whose turn is silent (a slow tool, a slow model); the
 * gateway uses SSE_KEEPALIVE_MS, these tests a shorter interval.
 */
describe("SSE keep-alive", () => {
  test("a producer silent for several intervals gets a comment per interval, before its data", async () => {
    const interval = 40;
    const clock = fakeTimers();
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    const response = sseResponse(
      async (writer) => {
        await gate;
        writer.raw("late");
      },
      { keepaliveMs: interval, timers: clock.timers },
    );
    for (let passed = 0; passed < 3; passed++) {
      clock.advance(interval - 1);
      await turns();
      clock.advance(1);
      await turns();
    }
    finish();
    expect(await (await response).text()).toBe(": keep-alive\n\n".repeat(3) + "data: late\n\n");
  });

  test("a producer that answers within the interval sends no comment, and none follow the end of the stream", async () => {
    const response = await sseResponse(
      async (writer) => {
        writer.send("delta", { text: "hi" });
      },
      { keepaliveMs: 100 },
    );
    expect(await response.text()).toBe('event: delta\ndata: {"text":"hi"}\n\n');
  });
});

describe("SSE response start", () => {
  test("the response starts with the producer's first event, while the producer still runs", async () => {
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    let ended = false;
    const response = await sseResponse(async (writer) => {
      writer.raw("first");
      await gate;
      writer.raw("second");
      ended = true;
    });
    expect(ended).toBe(false);
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: first\n\n");
    finish();
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    expect(rest).toBe("data: second\n\n");
    expect(ended).toBe(true);
  });

  test("a producer silent past the headers' wait gets its response started with a keep-alive comment", async () => {
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    let wrote = false;
    const response = await sseResponse(
      async (writer) => {
        await gate;
        wrote = true;
        writer.raw("late");
      },
      { headersWaitMs: 20 },
    );
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(wrote).toBe(false);
    finish();
    expect(await response.text()).toBe(": keep-alive\n\ndata: late\n\n");
  });

  test(`a silent producer's response starts with a keep-alive comment once SSE_HEADERS_WAIT_MS (${SSE_HEADERS_WAIT_MS} ms) passed, not a ms before`, async () => {
    const clock = fakeTimers();
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    let started = false;
    const response = sseResponse(
      async (writer) => {
        await gate;
        writer.raw("late");
      },
      { timers: clock.timers },
    );
    void response.then(() => (started = true));
    clock.advance(SSE_HEADERS_WAIT_MS - 1);
    await turns();
    expect(started).toBe(false);
    clock.advance(1);
    await turns();
    expect(started).toBe(true);
    finish();
    expect(await (await response).text()).toBe(": keep-alive\n\ndata: late\n\n");
  });

  test("a client gone before the response started aborts the producer", async () => {
    const client = new AbortController();
    let aborted!: () => void;
    const producerAborted = new Promise<void>((resolve) => (aborted = resolve));
    const response = sseResponse(
      async (_writer, signal) => {
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        aborted();
      },
      { signal: client.signal },
    );
    client.abort();
    await producerAborted;
    expect(await (await response).text()).toBe("");
  });

  test("events written in one turn of the event loop leave together; a producer that ends in it answers whole", async () => {
    const response = await sseResponse(async (writer) => {
      writer.send(null, { a: 1 });
      await null;
      writer.sendJson("named", '{"b":2}');
      writer.raw("[DONE]");
    });
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: {"a":1}\n\nevent: named\ndata: {"b":2}\n\ndata: [DONE]\n\n');
    expect((await reader.read()).done).toBe(true);
  });
});

describe("SSE producer pauses", () => {
  test("a pause ends once its time passed on the response's timers, not a ms before", async () => {
    const clock = fakeTimers();
    const response = sseResponse(
      async (writer) => {
        writer.raw("before");
        await writer.pause(500);
        writer.raw("after");
      },
      { timers: clock.timers },
    );
    const reader = (await response).body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: before\n\n");
    let next = "";
    const reading = reader.read().then((chunk) => (next = new TextDecoder().decode(chunk.value)));
    clock.advance(499);
    await turns();
    expect(next).toBe("");
    clock.advance(1);
    await reading;
    expect(next).toBe("data: after\n\n");
  });

  test("a pause ends at once when the client goes away, and leaves no timer behind", async () => {
    const clock = fakeTimers();
    const client = new AbortController();
    let resumed!: () => void;
    const pauseEnded = new Promise<void>((resolve) => (resumed = resolve));
    const response = sseResponse(
      async (writer) => {
        await writer.pause(60_000);
        resumed();
      },
      { signal: client.signal, timers: clock.timers, keepaliveMs: 120_000 },
    );
    await turns();
    // the headers' wait, the keep-alive interval and the pause
    expect(clock.pending()).toBe(3);
    client.abort();
    await pauseEnded;
    expect(clock.pending()).toBe(2);
    expect(await (await response).text()).toBe("");
    expect(clock.pending()).toBe(0);
  });
});

describe("SSE over HTTP", () => {
  test("a client that goes away mid-stream aborts the producer", async () => {
    let aborted!: () => void;
    const producerAborted = new Promise<void>((resolve) => (aborted = resolve));
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        sseResponse(async (writer, signal) => {
          writer.raw("first");
          await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
          aborted();
        }),
    });
    try {
      const client = new AbortController();
      const response = await fetch(`http://127.0.0.1:${server.port}/`, { signal: client.signal });
      const reader = response.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: first\n\n");
      client.abort();
      await producerAborted;
    } finally {
      server.stop(true);
    }
  });
});

describe("SSE over HTTP, a silent producer", () => {
  test("gets its headers with a keep-alive comment after the headers' wait, before its first event", async () => {
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        sseResponse(
          async (writer) => {
            await gate;
            writer.raw("late");
          },
          { headersWaitMs: 20 },
        ),
    });
    try {
      const response = await fetch(`http://127.0.0.1:${server.port}/`);
      const reader = response.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe(": keep-alive\n\n");
      finish();
      let rest = "";
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
      expect(rest).toBe("data: late\n\n");
    } finally {
      server.stop(true);
    }
  });
});
