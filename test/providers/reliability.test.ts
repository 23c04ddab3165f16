import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PrxError } from "../../src/core/errors.ts";
import { setLogSink } from "../../src/core/logger.ts";
import { parseRetryAfter } from "../../src/providers/http.ts";
import {
  classifyFailure,
  isRetryableStatus,
  PROVIDER_RETRY_AFTER_MAX_MS,
  retryDelayMs,
  withReliability,
} from "../../src/providers/reliability.ts";
import type { ChatRequest, ChatResponse, Provider } from "../../src/providers/types.ts";

const http = (status: number, retryAfterMs?: number) =>
  new PrxError("PROVIDER_HTTP", `p: HTTP ${status}`, {
    details: retryAfterMs === undefined ? { status, provider: "p" } : { status, provider: "p", retryAfterMs },
  });

/** A real Provider implementation that plays back a list of outcomes (the unit under test is the wrapper). */
function scripted(name: string, outcomes: (Error | string)[], streamFirst = false): Provider & { calls: number } {
  const provider = {
    name,
    calls: 0,
    async chat(request: ChatRequest): Promise<ChatResponse> {
      const outcome = outcomes[Math.min(provider.calls++, outcomes.length - 1)]!;
      if (streamFirst) request.onDelta?.({ type: "text", text: "partial" });
      if (outcome instanceof Error) throw outcome;
      return { text: outcome, toolCalls: [], model: "m", provider: name };
    },
  };
  return provider;
}

function options() {
  const sleeps: number[] = [];
  const sleep = async (ms: number) => void sleeps.push(ms);
  return { sleeps, retries: 2, backoff_ms: 100, max_backoff_ms: 300, sleep, random: () => 0 };
}
const logged: string[] = [];
beforeAll(() => setLogSink((line) => void logged.push(line)));
afterAll(() => setLogSink((line) => void process.stderr.write(line + "\n")));

const request: ChatRequest = { model: "m", messages: [{ role: "user", content: "x" }] };

describe("retry classification", () => {
  test("statuses", () => {
    expect([408, 429, 500, 502, 503, 529].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 422].some(isRetryableStatus)).toBe(false);
  });

  test("errors", () => {
    expect(classifyFailure(http(429))).toBe("retry");
    expect(classifyFailure(http(503))).toBe("retry");
    expect(classifyFailure(http(401))).toBe("fallback");
    expect(classifyFailure(new PrxError("PROVIDER_TIMEOUT", "t"))).toBe("retry");
    expect(classifyFailure(new PrxError("PROVIDER_UNREACHABLE", "u"))).toBe("retry");
    expect(classifyFailure(new PrxError("PROVIDER_PROTOCOL", "p"))).toBe("fallback");
    expect(classifyFailure(new PrxError("ABORTED", "a"))).toBe("stop");
    expect(classifyFailure(new DOMException("x", "AbortError"))).toBe("stop");
    expect(classifyFailure(new Error("plugin blew up"))).toBe("fallback");
  });

  test("backoff doubles up to the cap; Retry-After wins and is capped", () => {
    const o = { backoff_ms: 100, max_backoff_ms: 300 };
    expect([0, 1, 2, 3].map((attempt) => retryDelayMs(attempt, o, undefined, () => 0))).toEqual([100, 200, 300, 300]);
    expect(retryDelayMs(0, o, undefined, () => 1)).toBe(110);
    expect(retryDelayMs(0, o, 5000)).toBe(5000);
    expect(retryDelayMs(0, o, PROVIDER_RETRY_AFTER_MAX_MS)).toBe(PROVIDER_RETRY_AFTER_MAX_MS);
    expect(retryDelayMs(0, o, PROVIDER_RETRY_AFTER_MAX_MS + 1)).toBe(PROVIDER_RETRY_AFTER_MAX_MS);
  });

  test("Retry-After: seconds or HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("3", now)).toBe(3000);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:07 GMT", now)).toBe(7000);
    expect(parseRetryAfter("Wed, 31 Dec 2025 23:59:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

describe("withReliability", () => {
  test("retries transient failures with backoff, then succeeds", async () => {
    const o = options();
    const primary = scripted("a", [http(503), http(429, 40), "ok"]);
    const result = await withReliability(primary, [], o).chat(request);
    expect(result.text).toBe("ok");
    expect(o.sleeps).toEqual([100, 40]);
  });

  test("gives up after `retries` and walks the fallback chain in order", async () => {
    const o = options();
    const a = scripted("a", [http(500)]);
    const b = scripted("b", [http(401)]);
    const c = scripted("c", ["from c"]);
    const result = await withReliability(a, [b, c], o).chat(request);
    expect(result).toMatchObject({ text: "from c", provider: "c" });
    expect([a.calls, b.calls, c.calls]).toEqual([3, 1, 1]);
    expect(logged.filter((line) => line.includes("falling back")).length).toBeGreaterThanOrEqual(2);
  });

  test("when every provider fails the error names them all and keeps the first one's details", async () => {
    const o = { ...options(), retries: 0 };
    const error = await withReliability(scripted("a", [http(500)]), [scripted("b", [http(404)])], o)
      .chat(request)
      .then(() => undefined, (e: PrxError) => e);
    expect(error!.code).toBe("PROVIDER_HTTP");
    expect(error!.message).toContain("HTTP 500");
    expect(error!.message).toContain("HTTP 404");
    expect(error!.details).toMatchObject({ status: 500, provider: "p" });
  });

  test("one provider: its own error unchanged", async () => {
    const original = http(400);
    const caught = await withReliability(scripted("a", [original]), [], options()).chat(request).catch((e) => e);
    expect(caught).toBe(original);
  });

  test("no retry and no fallback once a delta was emitted", async () => {
    const o = options();
    const a = scripted("a", [http(503)], true);
    const b = scripted("b", ["b"]);
    const deltas: string[] = [];
    const caught = await withReliability(a, [b], o)
      .chat({ ...request, onDelta: (d) => void (d.type === "text" && deltas.push(d.text)) })
      .catch((e) => e);
    expect(caught.details.status).toBe(503);
    expect(deltas).toEqual(["partial"]);
    expect([a.calls, b.calls]).toEqual([1, 0]);
  });

  test("no retry when aborted, and an abort during backoff stops the wait", async () => {
    const controller = new AbortController();
    const a = scripted("a", [http(503)]);
    const slow = { retries: 3, backoff_ms: 60_000, max_backoff_ms: 60_000 };
    const wrapped = withReliability(a, [scripted("b", ["b"])], slow);
    const pending = wrapped.chat({ ...request, signal: controller.signal }).catch((e) => e);
    await Bun.sleep(5);
    controller.abort();
    const error = await pending;
    expect(error.code).toBe("ABORTED");
    expect(a.calls).toBe(1);
  });
});
