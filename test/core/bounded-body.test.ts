/**
 * The one bounded body reader: a body is streamed and abandoned at its byte cap (counted after content decoding, so a
 * small compressed body cannot expand past it) or when its signal aborts (the time cap); errors are the caller's.
 */
import { expect, test } from "bun:test";
import { gzipSync } from "node:zlib";
import { readBoundedBytes, readBoundedText, type BodyBounds } from "../../src/core/bounded-body.ts";
import { PrxError } from "../../src/core/errors.ts";

const errors: BodyBounds["errors"] = {
  tooLarge: (max) => new PrxError("LIMIT_EXCEEDED", `too large: over ${max}`),
  aborted: (reason) => new PrxError("ABORTED", `aborted: ${(reason as Error).name}`),
  failed: (cause) => new PrxError("INTERNAL", `failed: ${(cause as Error).message}`),
};

/** A body of `total` bytes in `chunk`-byte pieces, with no declared length; `pulled` counts the bytes handed out. */
function streamed(total: number, chunk = 4) {
  const state = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const size = Math.min(chunk, total - state.pulled);
      if (size <= 0) return controller.close();
      controller.enqueue(new Uint8Array(size).fill(0x61));
      state.pulled += size;
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { response: new Response(body), state };
}

const caught = (p: Promise<unknown>) => p.then(() => null, (e: PrxError) => e);

test("a streamed body of exactly the cap is read whole; one byte more is refused and the stream cancelled", async () => {
  let chunks = 0;
  expect(await readBoundedText(streamed(10).response, { maxBytes: 10, errors, onChunk: () => chunks++ })).toBe("a".repeat(10));
  expect(chunks).toBe(3); // 4 + 4 + 2 bytes: a caller's idle timer restarts with each
  const over = streamed(1_000_000);
  const error = await caught(readBoundedBytes(over.response, { maxBytes: 10, errors }));
  expect(error?.message).toBe("too large: over 10");
  // reading stopped at the first chunk past the cap: the rest of the body was never pulled
  expect(over.state.pulled).toBeLessThan(100);
  expect(over.state.cancelled).toBe(true);
});

test("a declared length past the cap is refused before reading; at the cap it is read", async () => {
  const at = new Response("x".repeat(10), { headers: { "content-length": "10" } });
  expect(await readBoundedText(at, { maxBytes: 10, errors })).toBe("x".repeat(10));
  const past = new Response("x".repeat(11), { headers: { "content-length": "11" } });
  expect((await caught(readBoundedBytes(past, { maxBytes: 10, errors })))?.message).toBe("too large: over 10");
});

test("a compressed body is counted decoded: 11 bytes from a smaller gzip body are refused at a cap of 10", async () => {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => {
      const size = Number(new URL(request.url).searchParams.get("n"));
      const gz = gzipSync("y".repeat(size));
      return new Response(gz, { headers: { "content-encoding": "gzip", "content-length": String(gz.length) } });
    },
  });
  try {
    const get = (n: number) => fetch(`http://127.0.0.1:${server.port}/?n=${n}`);
    expect(await readBoundedText(await get(10), { maxBytes: 10, errors })).toBe("y".repeat(10));
    expect((await caught(readBoundedBytes(await get(11), { maxBytes: 10, errors })))?.message).toBe("too large: over 10");
    // 4 MiB of one letter is a few KiB of gzip: its declared length says nothing of what it decodes to
    expect((await caught(readBoundedBytes(await get(4 * 1024 * 1024), { maxBytes: 64 * 1024, errors })))?.message).toBe(
      `too large: over ${64 * 1024}`,
    );
  } finally {
    server.stop(true);
  }
});

test("a body that stops sending ends with the caller's error when its signal aborts (the time cap)", async () => {
  const stalled = new Response(new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new Uint8Array([0x61])) }));
  const controller = new AbortController();
  const reading = caught(readBoundedBytes(stalled, { maxBytes: 10, signal: controller.signal, errors }));
  controller.abort(new DOMException("time cap", "TimeoutError"));
  expect((await reading)?.message).toBe("aborted: TimeoutError");
});

test("a connection that fails mid-body is the caller's failed error", async () => {
  const broken = new Response(
    new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new Uint8Array([0x61]));
        c.error(new Error("reset"));
      },
    }),
  );
  expect((await caught(readBoundedBytes(broken, { maxBytes: 10, errors })))?.message).toBe("failed: reset");
});
