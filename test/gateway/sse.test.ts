import { describe, expect, test } from "bun:test";
import { sseResponse } from "../../src/gateway/sse.ts";

/**
 * Keep-alive comments keep proxies from closing a stream whose turn is silent (a slow tool, a slow model); the
 * gateway uses SSE_KEEPALIVE_MS, these tests a shorter interval.
 */
describe("SSE keep-alive", () => {
  test("a producer silent for several intervals gets a comment per interval, before its data", async () => {
    const interval = 40;
    const response = sseResponse(
      async (writer) => {
        await Bun.sleep(interval * 3.5);
        writer.raw("late");
      },
      {},
      interval,
    );
    const text = await response.text();
    const comments = text.split(": keep-alive\n\n").length - 1;
    expect(comments).toBeGreaterThanOrEqual(2);
    expect(comments).toBeLessThanOrEqual(3);
    expect(text.endsWith("data: late\n\n")).toBe(true);
  });

  test("a producer that answers within the interval sends no comment, and none follow the end of the stream", async () => {
    const response = sseResponse(
      async (writer) => {
        writer.send("delta", { text: "hi" });
      },
      {},
      100,
    );
    expect(await response.text()).toBe('event: delta\ndata: {"text":"hi"}\n\n');
  });
});
