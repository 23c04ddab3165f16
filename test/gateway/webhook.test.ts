import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { IDEMPOTENCY_KEY_MAX_BYTES } from "../../src/gateway/limits.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { harness, type Harness, json } from "./harness.ts";

let fake: FakeServer;
let h: Harness;
beforeAll(async () => {
  fake = startFakeOpenAI();
  h = await harness({ fake, gateway: { idempotency_ttl_s: 60 } });
});
afterAll(async () => {
  await h.close();
  await fake.stop();
});

const hook = (json: unknown, key?: string, auth?: string) =>
  h.call("/webhook", {
    json,
    headers: key === undefined ? {} : { "x-idempotency-key": key },
    ...(auth ? { auth } : {}),
  });

describe("POST /webhook", () => {
  test("runs a turn in a new session, or continues the given one", async () => {
    const first = await json(hook({ message: "one" }));
    expect(first.reply).toBe("echo: one");
    expect(first.session_id).toStartWith("webhook_");
    const second = await json(hook({ message: "two", session_id: first.session_id }));
    expect(second.session_id).toBe(first.session_id);
    expect((await h.host.sessions.get(first.session_id))?.messageCount).toBe(4);
    expect((await hook({ message: "x", session_id: "bad id" })).status).toBe(400);
  });

  test("replay returns the stored reply with idempotent-replay: true and runs no second turn", async () => {
    const before = fake.chatRequests().length;
    const first = await hook({ message: "pay once" }, "key-1");
    expect(first.status).toBe(200);
    const body = await first.text();
    const replay = await hook({ message: "pay once" }, "key-1");
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replay")).toBe("true");
    expect(await replay.text()).toBe(body);
    expect(fake.chatRequests().length).toBe(before + 1);
  });

  test("same key with a different body: 409", async () => {
    await hook({ message: "original" }, "key-2");
    const conflict = await hook({ message: "changed" }, "key-2");
    expect(conflict.status).toBe(409);
    expect((await json(conflict)).error.message).toContain("different request body");
  });

  test("same key while the first request is in progress: 409; afterwards it replays", async () => {
    fake.enqueue({ type: "text", text: "slow answer", delayMs: 300 });
    const first = hook({ message: "slow" }, "key-3");
    await Bun.sleep(50);
    const during = await hook({ message: "slow" }, "key-3");
    expect(during.status).toBe(409);
    expect((await json(during)).error.message).toContain("still in progress");
    expect((await json(first)).reply).toBe("slow answer");
    const after = await hook({ message: "slow" }, "key-3");
    expect(after.headers.get("idempotent-replay")).toBe("true");
    expect((await json(after)).reply).toBe("slow answer");
  });

  test("keys are scoped per credential", async () => {
    await hook({ message: "mine" }, "key-4");
    const other = h.auth.tokens.create("other").token;
    const response = await hook({ message: "theirs" }, "key-4", other);
    expect(response.status).toBe(200);
    expect(response.headers.get("idempotent-replay")).toBeNull();
  });

  test("keys expire after gateway.idempotency_ttl_s", async () => {
    await hook({ message: "ttl" }, "key-5");
    h.clock.advance(60_000);
    const response = await hook({ message: "ttl" }, "key-5");
    expect(response.headers.get("idempotent-replay")).toBeNull();
  });

  test("a provider failure (5xx) releases the key so a retry runs the turn", async () => {
    fake.enqueue({ type: "error", status: 500 });
    expect((await hook({ message: "retry me" }, "key-6")).status).toBe(502);
    const retry = await hook({ message: "retry me" }, "key-6");
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replay")).toBeNull();
  });

  test(`X-Idempotency-Key up to ${IDEMPOTENCY_KEY_MAX_BYTES} bytes; longer is 400`, async () => {
    expect((await hook({ message: "k" }, "k".repeat(IDEMPOTENCY_KEY_MAX_BYTES))).status).toBe(200);
    const long = await hook({ message: "k" }, "k".repeat(IDEMPOTENCY_KEY_MAX_BYTES + 1));
    expect(long.status).toBe(400);
    expect((await json(long)).error.message).toContain(`1-${IDEMPOTENCY_KEY_MAX_BYTES} bytes`);
  });
});

describe("readiness", () => {
  test("a failing extra check (plugins) makes /health 503", async () => {
    const x = await harness({
      deps: { checks: { plugins: () => ({ ok: false, detail: "2 plugins failed to load" }) } },
    });
    const response = await x.call("/health", { auth: false });
    expect(response.status).toBe(503);
    expect(await json(response)).toMatchObject({
      status: "unavailable",
      checks: { plugins: { ok: false }, database: { ok: true } },
    });
    await x.close();
  });

  test("an unreachable database makes /health 503", async () => {
    const x = await harness();
    await x.host.storage.close();
    const response = await x.call("/health", { auth: false });
    expect(response.status).toBe(503);
    expect((await json(response)).checks.database).toMatchObject({
      ok: false,
      detail: expect.stringContaining("database unreachable"),
    });
    await x.close();
  });
});
