import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SESSION_SEARCH_MAX_CHARS, SESSION_TITLE_MAX_CHARS } from "../../src/gateway/limits.ts";
import { APPROVE_MAX_BODY_BYTES, channelRoutes, type ChannelsApi } from "../../src/gateway/routes/channels.ts";
import { HIDDEN_VALUE } from "../../src/gateway/routes/config.ts";
import { SESSION_RENAME_MAX_BODY_BYTES } from "../../src/gateway/routes/session-manage.ts";
import { STATUS_STREAMS_MAX } from "../../src/gateway/routes/status-stream.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { harness, json, type Harness } from "./harness.ts";

/** The routes the web console needs beyond the original API: sign-out, session management, providers, config, live status. */
let fake: FakeServer;
let h: Harness;
beforeAll(async () => {
  fake = startFakeOpenAI();
  process.env.PRX_TEST_CONSOLE_KEY = "secret-value";
  h = await harness({
    fake,
    config: {
      providers: {
        fake: { base_url: fake.url, models: ["fake-model", "fake-big"], api_key_env: "PRX_TEST_CONSOLE_KEY", headers: { "x-org": "acme-secret" } },
      },
    },
  });
});
afterAll(async () => {
  await h.close();
  await fake.stop();
  delete process.env.PRX_TEST_CONSOLE_KEY;
});

describe("sign-out", () => {
  test("GET /api/auth/token names the caller's token; DELETE revokes it and only it", async () => {
    const other = h.auth.tokens.create("other").token;
    const mine = h.auth.tokens.create("mine");
    const who = await json(h.call("/api/auth/token", { auth: mine.token }));
    expect(who).toEqual({ id: mine.record.id, name: "mine", kind: "token" });
    expect(await json(h.call("/api/auth/token", { method: "DELETE", auth: mine.token }))).toEqual({ id: mine.record.id, revoked: true });
    expect((await h.call("/api/status", { auth: mine.token })).status).toBe(401);
    expect((await h.call("/api/status", { auth: other })).status).toBe(200);
  });

  test("with pairing off there is no token to revoke: 409 saying so", async () => {
    const open = await harness({ requirePairing: false, withToken: false });
    try {
      const response = await open.call("/api/auth/token", { method: "DELETE", auth: false });
      expect(response.status).toBe(409);
      expect((await json(response)).error.hint).toContain("pairing");
    } finally {
      await open.close();
    }
  });
});

describe("sessions: search, rename, cancel, model", () => {
  test("?q= finds sessions by title or id, case-insensitively; a search is at most SESSION_SEARCH_MAX_CHARS", async () => {
    await h.call("/api/sessions/find-me-1/message", { json: { message: "Pancakes recipe" } });
    await h.call("/api/sessions/other-1/message", { json: { message: "weather" } });
    const ids = async (q: string) => (await json(h.call(`/api/sessions?q=${encodeURIComponent(q)}`))).sessions.map((s: { id: string }) => s.id);
    expect(await ids("PANCAKE")).toEqual(["find-me-1"]);
    expect(await ids("find-me")).toEqual(["find-me-1"]);
    expect(await ids("100%")).toEqual([]);
    expect((await h.call(`/api/sessions?q=${"a".repeat(SESSION_SEARCH_MAX_CHARS)}`)).status).toBe(200);
    expect((await h.call(`/api/sessions?q=${"a".repeat(SESSION_SEARCH_MAX_CHARS + 1)}`)).status).toBe(400);
  });

  test(`PATCH renames (1-${SESSION_TITLE_MAX_CHARS} characters); the title stays after more turns; unknown session 404`, async () => {
    await h.call("/api/sessions/rename-1/message", { json: { message: "first" } });
    const longest = "t".repeat(SESSION_TITLE_MAX_CHARS);
    const renamed = await h.call("/api/sessions/rename-1", { method: "PATCH", json: { title: longest } });
    expect(renamed.status).toBe(200);
    expect((await json(renamed)).title).toBe(longest);
    const tooLong = await h.call("/api/sessions/rename-1", { method: "PATCH", json: { title: `${longest}t` } });
    expect(tooLong.status).toBe(400);
    expect((await json(tooLong)).error.message).toStartWith("invalid request body: title: ");
    await h.call("/api/sessions/rename-1", { method: "PATCH", json: { title: "Breakfast" } });
    await h.call("/api/sessions/rename-1/message", { json: { message: "second" } });
    expect((await json(h.call("/api/sessions/rename-1"))).session.title).toBe("Breakfast");
    expect((await h.call("/api/sessions/never-1", { method: "PATCH", json: { title: "x" } })).status).toBe(404);
  });

  test(`a rename body of SESSION_RENAME_MAX_BODY_BYTES is read, one byte more is 413`, async () => {
    const body = (size: number) => `{"title":"x"${" ".repeat(size - 13)}}`;
    expect(body(SESSION_RENAME_MAX_BODY_BYTES).length).toBe(SESSION_RENAME_MAX_BODY_BYTES);
    const patch = (text: string) => h.call("/api/sessions/rename-1", { method: "PATCH", body: text, headers: { "content-type": "application/json" } });
    expect((await patch(body(SESSION_RENAME_MAX_BODY_BYTES))).status).toBe(200);
    expect((await patch(body(SESSION_RENAME_MAX_BODY_BYTES + 1))).status).toBe(413);
  });

  test("POST /cancel stops the running turn: its request ends ABORTED, the session keeps the user message", async () => {
    fake.enqueue({ type: "hang" });
    const running = h.call("/api/sessions/cancel-1/message", { json: { message: "take your time" } });
    while (!fake.chatRequests().some((r) => JSON.stringify(r.body).includes("take your time"))) await Bun.sleep(5);
    expect(await json(h.call("/api/sessions/cancel-1/cancel", { method: "POST" }))).toEqual({ session_id: "cancel-1", cancelled: 1 });
    const response = await running;
    expect((await json(response)).error.code).toBe("ABORTED");
    const messages = (await json(h.call("/api/sessions/cancel-1/messages"))).messages;
    expect(messages[0]).toMatchObject({ role: "user", content: "take your time" });
    expect(await json(h.call("/api/sessions/cancel-1/cancel", { method: "POST" }))).toEqual({ session_id: "cancel-1", cancelled: 0 });
  });

  test("a message may name a served model; an unknown one is a 404", async () => {
    await h.call("/api/sessions/model-1/message", { json: { message: "which model", model: "fake-big" } });
    expect(fake.chatRequests().at(-1)!.body.model).toBe("fake-big");
    const unknown = await h.call("/api/sessions/model-1/message", { json: { message: "x", model: "nope" } });
    expect(unknown.status).toBe(404);
  });
});

describe("providers, config", () => {
  test("GET /api/providers probes each provider: the fake is reachable, its key variable is named and set", async () => {
    const { providers } = await json(h.call("/api/providers"));
    expect(providers[0]).toMatchObject({ name: "fake", role: "default", reachable: true, key_env: "PRX_TEST_CONSOLE_KEY", key_set: true });
  });

  test("GET /api/config: secrets only as variable names, literal headers hidden, validation of config.toml", async () => {
    const report = await json(h.call("/api/config"));
    const text = JSON.stringify(report);
    expect(text).not.toContain("secret-value");
    expect(text).not.toContain("acme-secret");
    expect(report.config.providers.fake.headers).toEqual({ "x-org": HIDDEN_VALUE });
    expect(report.secrets).toContainEqual({ key: "providers.fake.api_key_env", env: "PRX_TEST_CONSOLE_KEY", set: true, in_use: true });
    expect(report.validation).toEqual({ ok: true, error: null });
    // [storage] url_env names DATABASE_URL by default: on SQLite it does not apply, so its absence is no warning
    expect(report.secrets).toContainEqual({ key: "storage.url_env", env: "DATABASE_URL", set: Boolean(process.env.DATABASE_URL), in_use: false });
    expect(report.secrets.find((s: { key: string }) => s.key === "bus.url_env").in_use).toBe(false);
    expect(report.origins).toEqual([]);

    // where each value came from: config.toml, or an environment override (which wins over the file)
    await Bun.write(h.host.workspace.configPath, 'default_model = "fake-big"\n[gateway]\nport = 17001\n[reliability]\nfallback_providers = ["offline"]\n');
    process.env.PRX_MODEL = "fake-model";
    try {
      const origins = (await json(h.call("/api/config"))).origins;
      expect(origins).toEqual([
        { key: "default_model", origin: "env", env: "PRX_MODEL" },
        { key: "gateway.port", origin: "file" },
        { key: "reliability.fallback_providers", origin: "file" },
      ]);
    } finally {
      delete process.env.PRX_MODEL;
    }
    await Bun.write(h.host.workspace.configPath, "default_provider = [\n");
    const broken = (await json(h.call("/api/config"))).validation;
    expect(broken.ok).toBe(false);
    expect(broken.error.code).toBe("CONFIG_PARSE");
  });
});

describe("live status", () => {
  test("GET /api/status/stream sends a snapshot at once; STATUS_STREAMS_MAX at a time, one more is 429", async () => {
    const streams = await Promise.all(Array.from({ length: STATUS_STREAMS_MAX }, () => h.call("/api/status/stream")));
    expect(streams.map((s) => s.status)).toEqual(Array(STATUS_STREAMS_MAX).fill(200));
    const reader = streams[0]!.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toStartWith("event: status\ndata: ");
    const snapshot = JSON.parse(first.split("data: ")[1]!);
    expect(snapshot.status.provider).toBe("fake");
    expect(snapshot.health.status).toBe("ok");
    const over = await h.call("/api/status/stream");
    expect(over.status).toBe(429);
    await reader.cancel();
    for (const stream of streams.slice(1)) await stream.body!.cancel();
    let again = 429;
    while (again === 429) again = (await h.call("/api/status/stream").then(async (r) => (await r.body?.cancel(), r.status)));
    expect(again).toBe(200);
  });
});

describe("console and docs pages", () => {
  test("GET / is the console page (public), its assets are public, an unknown asset is 404", async () => {
    const page = await h.call("/", { auth: false });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toStartWith("text/html");
    const html = await page.text();
    const script = /src="\/console\/([^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeTruthy();
    expect(html).not.toMatch(/(src|href)="https?:/);
    const js = await h.call(`/console/${script}`, { auth: false });
    expect(js.headers.get("content-type")).toStartWith("text/javascript");
    expect(js.headers.get("cache-control")).toContain("immutable");
    expect((await h.call("/console/nothing.js", { auth: false })).status).toBe(404);
  });

  test("/swagger/ with a trailing slash loads the document by absolute path", async () => {
    const page = await h.call("/swagger/", { auth: false });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('data-url="/swagger/json"');
  });
});

describe("channels", () => {
  test(`a pairing approval body of APPROVE_MAX_BODY_BYTES is read, one byte more is 413; the live status carries the channels`, async () => {
    const approved: string[] = [];
    const info = { channel: "tg", sender_id: "1", display: "one", code: null, state: "approved" as const, created_at: 0, approved_at: 0 };
    const api: ChannelsApi = {
      list: () => [],
      restart: () => Promise.reject(new Error("not used")),
      forward: () => Promise.reject(new Error("not used")),
      health: () => ({ ok: true }),
      pairings: { list: () => [], approve: (code) => (approved.push(code), info), revoke: () => 0 },
    };
    const c = await harness({ deps: { mounts: [channelRoutes(api, 1024 * 1024)] } });
    try {
      const body = (size: number) => `{"code":"ABC123"${" ".repeat(size - 17)}}`;
      expect(body(APPROVE_MAX_BODY_BYTES).length).toBe(APPROVE_MAX_BODY_BYTES);
      const approve = (text: string) => c.call("/api/channels/pairings/approve", { method: "POST", body: text, headers: { "content-type": "application/json" } });
      expect((await approve(body(APPROVE_MAX_BODY_BYTES))).status).toBe(200);
      expect((await approve(body(APPROVE_MAX_BODY_BYTES + 1))).status).toBe(413);
      expect(approved).toEqual(["ABC123"]);
      expect(c.gw.live.has("channels")).toBe(true);
    } finally {
      await c.close();
    }
  });
});
