import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { hooksRoutes } from "../../../src/gateway/routes/hooks.ts";
import { pluginGatewayMounts, pluginRoutes } from "../../../src/gateway/routes/plugins.ts";
import { buildGateway } from "../../../src/gateway/app.ts";
import { AuthService } from "../../../src/gateway/auth/service.ts";
import { isPrxError, PrxError } from "../../../src/core/errors.ts";
import { parseProbeRequest, runProbe } from "../../../src/plugins/probes/index.ts";
import type { FakeServer } from "../../fakes/index.ts";
import { gatewayWithMounts } from "../../helpers/gateway-app.ts";
import { body, failure, kvText, openScenario, type HostScenario, type OpenedHost, type TestWorkspace, MANAGE_TOOL_OPT_IN } from "./helpers.ts";
import { waitFor } from "../../helpers/wait.ts";
import { hostDb, sqliteStorageOf } from "../../helpers/host-db.ts";

const ALL = ["redact-mw", "garbage-mw", "hook-rec", "cron-count", "provider-wat", "storage-ts"];
const inbound = { text: "mail me: x@y.io", channel: "api", user_id: null, session_id: "p", metadata: {} };

let fake: FakeServer;
let ws: TestWorkspace;
let opened: OpenedHost;
let scenario: HostScenario;
beforeAll(async () => void ({ fake, ws, opened } = scenario = await openScenario(ALL, MANAGE_TOOL_OPT_IN)));
afterAll(() => scenario.close());

const probe = (raw: unknown, plugin?: string) => runProbe(opened.services, parseProbeRequest(raw, plugin));

describe("probes on the production generation", () => {
  test("list and status", async () => {
    const list = await probe({ action: "list" });
    expect((list.result.plugins as { name: string; status: string }[]).map((p) => `${p.name}:${p.status}`)).toEqual(
      ALL.toSorted().map((n) => `${n}:active`),
    );
    const status = await probe({ action: "status", plugin: "cron-count" });
    expect((status.result.cron as { id: string }[]).map((j) => j.id)).toEqual(["cron-count/count"]);
  });

  test("middleware_test runs the live chain (or one plugin's part of it) and counts in status", async () => {
    const before = opened.services.runtime.status.get("redact-mw", "middleware", "redact-email")?.invocations ?? 0;
    const whole = await probe({ action: "middleware_test", stage: "inbound", data: inbound });
    expect((whole.result.output as { text: string }).text).toBe("mail me: [email redacted]");
    expect((whole.result.steps as { plugin: string; ok: boolean }[]).map((s) => `${s.plugin}:${s.ok}`)).toEqual([
      "garbage-mw:false",
      "redact-mw:true",
    ]);
    const one = await probe(
      { action: "middleware_test", stage: "outbound", data: { text: "a@b.cd", channel: "c", session_id: "s" } },
      "redact-mw",
    );
    expect(one.result.changed).toBe(true);
    expect(opened.services.runtime.status.get("redact-mw", "middleware", "redact-email")!.invocations).toBe(before + 2);
    const bad = await failure(probe({ action: "middleware_test", stage: "outbound", data: {} }));
    expect(isPrxError(bad, "BAD_REQUEST")).toBe(true);
  });

  test("cron_run, provider_chat and every storage op", async () => {
    const run = await probe({ action: "cron_run", name: "cron-count" });
    expect(run.result).toMatchObject({ job: "cron-count/count", ok: true, output: "run #1" });
    expect(kvText(hostDb(opened.host), "cron-count", "runs")).toBe("1");
    // The result is published as prx.cron.<plugin>, which the hook plugin subscribes to.
    await waitFor(() => kvText(hostDb(opened.host), "hook-rec", "topics")?.includes("prx.cron.cron-count"));
    const chat = await probe({
      action: "provider_chat",
      name: "wasm:wat-echo",
      messages: [{ role: "user", content: "ping" }],
    });
    expect(chat.result).toMatchObject({ provider: "wasm:wat-echo", text: "wat-echo says: ping", tool_calls: [] });
    const store = { action: "storage", name: "wasm:ts-kv" };
    expect((await probe({ ...store, op: "health" })).result.healthy).toBe(true);
    await probe({ ...store, op: "store", key: "k", content: "probe content" });
    expect((await probe({ ...store, op: "count" })).result.count).toBe(1);
    expect(
      ((await probe({ ...store, op: "recall", query: "probe" })).result.entries as { key: string }[])[0]!.key,
    ).toBe("k");
    expect((await probe({ ...store, op: "forget", key: "k" })).result.forgotten).toBe(true);
    const counters = opened.services.runtime.status.get("storage-ts", "storage", "ts-kv")!;
    expect(counters.invocations).toBeGreaterThanOrEqual(6);
    const wrong = await failure(probe({ ...store, op: "count" }, "provider-wat"));
    expect(wrong.message).toContain('does not belong to plugin "provider-wat"');
  });

  test("reload and malformed requests", async () => {
    const before = opened.services.runtime.current().number;
    const reload = await probe({ action: "reload", plugin: "provider-wat" });
    expect(reload.generation).toBe(before + 1);
    expect(() => parseProbeRequest({ action: "storage", name: "x", op: "explode" })).toThrow(/op/);
    expect(() => parseProbeRequest({ action: "nope" })).toThrow(/invalid probe/);
    const missing = await failure(probe({ action: "cron_run", name: "nothing" }));
    expect(isPrxError(missing, "PLUGIN_NOT_FOUND")).toBe(true);
  });

  test("wasm_plugins_manage is a tool the model can call", async () => {
    fake.enqueue(
      {
        type: "tool_calls",
        calls: [
          {
            name: "wasm_plugins_manage",
            arguments: {
              action: "provider_chat",
              name: "wasm:wat-echo",
              messages: [{ role: "user", content: "via tool" }],
            },
          },
        ],
      },
      { type: "text", text: "ok" },
    );
    const result = await opened.host.runTurn({ sessionId: "tool", channel: "test", text: "probe it" });
    expect(result.toolCalls[0]!.result.success).toBe(true);
    expect(JSON.parse(result.toolCalls[0]!.result.output).result.text).toBe("wat-echo says: via tool");
    const failed = await opened.host.tools.call(
      "wasm_plugins_manage",
      JSON.stringify({ action: "storage", name: "wasm:none", op: "count" }),
      {
        sessionId: "x",
        workspace: ws.root,
        signal: new AbortController().signal,
      },
    );
    expect(failed.success).toBe(false);
    expect(failed.error).toContain("wasm:ts-kv");
  });
});

describe("HTTP routes (pluginRoutes + hooksRoutes on an Elysia app)", () => {
  const app = () => gatewayWithMounts(opened.host, [pluginRoutes(() => opened.services), hooksRoutes(() => opened.services.hooks)]).app;
  const call = (method: string, path: string, body?: unknown) =>
    app().handle(
      new Request(`http://local${path}`, {
        method,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );

  test("GET /api/plugins shows per-capability counters; /:name and 404", async () => {
    const list = await body(await call("GET", "/api/plugins"));
    const redact = list.plugins.find((p: { name: string }) => p.name === "redact-mw");
    expect(redact.capabilities[0].counters.invocations).toBeGreaterThan(0);
    expect(redact.capabilities[0].counters.last_event.name).toBeString();
    expect((await call("GET", "/api/plugins/garbage-mw")).status).toBe(200);
    const missing = await call("GET", "/api/plugins/nope");
    expect(missing.status).toBe(404);
    expect((await body(missing)).error.code).toBe("PLUGIN_NOT_FOUND");
  });

  test("POST /api/plugins/:name/probe and /reload", async () => {
    const res = await call("POST", "/api/plugins/redact-mw/probe", {
      action: "middleware_test",
      stage: "inbound",
      data: inbound,
    });
    expect(res.status).toBe(200);
    const json = await body(res);
    expect(json.plugin).toBe("redact-mw");
    expect(json.result.output.text).toBe("mail me: [email redacted]");
    expect((await call("POST", "/api/plugins/redact-mw/probe", { action: "bogus" })).status).toBe(400);
    expect((await call("POST", "/api/plugins/nope/probe", { action: "status" })).status).toBe(404);
    const reload = await body(await call("POST", "/api/plugins/redact-mw/reload"));
    expect(reload.success).toBe(true);
    expect(reload.generation).toBe(opened.services.runtime.current().number);
    const outcome = (name: string, r: { plugins: { name: string; outcome: string }[] }) => r.plugins.find((p) => p.name === name)?.outcome;
    expect(outcome("redact-mw", reload)).toBe("rebuilt");
    expect(outcome("garbage-mw", reload)).toBe("carried_over");
    const list = await body(await call("GET", "/api/plugins"));
    expect(list.plugins.find((p: { name: string }) => p.name === "garbage-mw").reload).toEqual({ outcome: "carried_over", error: null });
    const everything = await body(await call("POST", "/api/plugins/reload"));
    expect(outcome("garbage-mw", everything)).toBe("rebuilt");
    const forced = await body(await call("POST", "/api/plugins/redact-mw/reload?force=true&all=true"));
    expect(outcome("garbage-mw", forced)).toBe("rebuilt");
    expect((await call("POST", "/api/plugins/redact-mw/reload?force=yes")).status).toBe(400);
  }, 30_000);

  test("GET/POST/PUT/DELETE /api/hooks edit hooks.json through the same validation", async () => {
    const empty = await body(await call("GET", "/api/hooks"));
    expect(empty).toMatchObject({ hash: null, actions: 0 });
    const added = await body(
      await call("POST", "/api/hooks", { event: "Agent-End", action: { command: "true" }, if_match: null }),
    );
    expect(added.actions).toBe(1);
    expect(Object.keys(added.doc.hooks)).toEqual(["agent_end"]);
    const stale = await call("POST", "/api/hooks", {
      event: "x",
      action: { command: "true" },
      if_match: "0".repeat(64),
    });
    expect(stale.status).toBe(409);
    const invalid = await call("POST", "/api/hooks", {
      event: "x",
      action: { command: "true", env: { PATH: "/evil" } },
    });
    expect(invalid.status).toBe(400);
    expect((await body(invalid)).error.message).toContain("PATH");
    const replaced = await body(
      await call("PUT", "/api/hooks", {
        doc: { timeout_ms: 2000, hooks: { "prx.cron.*": [{ command: "true" }, { command: "false" }] } },
      }),
    );
    expect(replaced).toMatchObject({ actions: 2, doc: { timeout_ms: 2000 } });
    const removed = await body(await call("DELETE", "/api/hooks?event=prx.cron.*&index=1"));
    expect(removed.actions).toBe(1);
    expect((await call("DELETE", "/api/hooks?event=nothing")).status).toBe(404);
    expect((await call("DELETE", "/api/hooks")).status).toBe(400);
    writeFileSync(join(ws.root, "hooks.json"), "{ not json");
    const kept = await body(await call("GET", "/api/hooks"));
    expect(kept.actions).toBe(1);
    expect(kept.status.last_reload.ok).toBe(false);
  });
});

describe("the gateway app with pluginGatewayMounts", () => {
  test("routes sit behind the pipeline (bearer auth) and answer from the host's runtime", async () => {
    const auth = new AuthService({ tokens: sqliteStorageOf(opened.host).tokens, pairingCodes: sqliteStorageOf(opened.host).gatewayPairing, required: true, pairingCodeTtlMs: 60_000, now: Date.now });
    const token = auth.tokens.create("probes").token;
    const { app } = buildGateway({
      host: opened.host,
      auth,
      version: "test",
      startedAt: Date.now(),
      mounts: pluginGatewayMounts(opened.host),
    });
    const get = (path: string, withToken = true) =>
      app.handle(
        new Request(`http://local${path}`, { headers: withToken ? { authorization: `Bearer ${token}` } : {} }),
      );
    expect((await get("/api/plugins", false)).status).toBe(401);
    const list = await body(await get("/api/plugins"));
    expect(list.count).toBe(ALL.length);
    expect((await get("/api/hooks")).status).toBe(200);
    const bare = { workspace: { root: "/nowhere" }, extensions: { state: "ready" as const }, loadExtensions: async () => {}, plugins: undefined };
    const orphan = gatewayWithMounts(opened.host, pluginGatewayMounts(bare)).app;
    expect((await orphan.handle(new Request("http://local/api/plugins"))).status).toBe(503);
  });
});
