/**
 * GET /health while a server it checks does not answer: each check is bounded by HEALTH_CHECK_TIMEOUT_MS and the
 * checks run together, so /health answers 503 naming the stuck check instead of waiting for it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { HEALTH_CHECK_TIMEOUT_MS } from "../../src/gateway/limits.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { harness, json, type Harness } from "./harness.ts";

let fake: FakeServer;
let h: Harness;
let failing = false;
beforeAll(async () => {
  fake = startFakeOpenAI();
  h = await harness({
    fake,
    deps: {
      checks: {
        stuck: () => (failing ? new Promise(() => {}) : { ok: true }),
        other: () => (failing ? Promise.reject(new Error("redis unreachable: Connection has failed")) : { ok: true }),
        fine: async () => ({ ok: true, detail: "answers" }),
      },
    },
  });
});
afterAll(async () => {
  await h.close();
  await fake.stop();
});

describe("/health checks, each bounded", () => {
  test("every check answering: 200", async () => {
    const response = await h.call("/health", { auth: false });
    expect(response.status).toBe(200);
  });

  test(`a check that never answers is failed after HEALTH_CHECK_TIMEOUT_MS (${HEALTH_CHECK_TIMEOUT_MS} ms): 503 naming it, the others reported`, async () => {
    failing = true;
    const response = await h.call("/health", { auth: false });
    expect(response.status).toBe(503);
    const body = (await json(response)) as { checks: Record<string, unknown> };
    expect(body.checks.stuck).toEqual({ ok: false, detail: `no answer within ${HEALTH_CHECK_TIMEOUT_MS} ms` });
    expect(body.checks.other).toEqual({ ok: false, detail: "redis unreachable: Connection has failed" });
    expect(body.checks.fine).toEqual({ ok: true, detail: "answers" });
    failing = false;
  });
});
