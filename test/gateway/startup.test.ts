import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost, type HostExtensions } from "../../src/agent/index.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { buildGateway } from "../../src/gateway/app.ts";
import { AuthService } from "../../src/gateway/auth/service.ts";
import { pluginHealthCheck } from "../../src/gateway/plugin-health.ts";
import { pluginGatewayMounts } from "../../src/gateway/routes/plugins.ts";
import { NoneMemory } from "../../src/memory/index.ts";
import { pluginExtensions } from "../../src/agent/plugin-extensions.ts";
import { json } from "./harness.ts";
import { sqliteStorageOf } from "../helpers/host-db.ts";

/** The gateway listens before its plugin runtime starts (OpenAgentHostOptions.deferExtend). */

const dirs: string[] = [];
const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function open(extend: NonNullable<Parameters<typeof openAgentHost>[0]>["extend"], config: object = {}) {
  const dir = mkdtempSync(join(tmpdir(), "prx-gw-startup-"));
  dirs.push(dir);
  const parsed = ConfigSchema.parse({ gateway: { require_pairing: false }, ...config });
  const host = await openAgentHost({ workspace: dir, config: parsed, extend, deferExtend: true });
  hosts.push(host);
  return host;
}

function gatewayOf(host: AgentHost) {
  const auth = new AuthService({ tokens: sqliteStorageOf(host).tokens, pairingCodes: sqliteStorageOf(host).gatewayPairing, required: false, pairingCodeTtlMs: 60_000, now: Date.now });
  const { app } = buildGateway({
    host,
    auth,
    version: "test",
    startedAt: Date.now(),
    mounts: pluginGatewayMounts(host),
    checks: { plugins: pluginHealthCheck(host) },
  });
  return (path: string) => app.handle(new Request(`http://localhost${path}`));
}

const turn = { sessionId: "startup", text: "hello", channel: "test", historyOverride: [] };

describe("deferred plugin runtime", () => {
  test("/health is ready with plugins 'starting' and does not load them; /api/plugins loads them", async () => {
    const host = await open(pluginExtensions);
    const get = gatewayOf(host);
    const before = await get("/health");
    expect(before.status).toBe(200);
    expect((await json(before)).checks.plugins).toEqual({
      ok: true,
      detail: "starting: turns wait until the plugins are loaded",
    });
    expect(host.extensions.state).toBe("idle");
    const list = await get("/api/plugins");
    expect(list.status).toBe(200);
    expect((await json(list)).count).toBe(0);
    expect(host.extensions.state).toBe("ready");
    expect((await json(get("/health"))).checks.plugins.detail).toMatch(/^generation 1: 0 loaded, 0 in error$/);
  });

  test("a turn started before the plugins loaded waits for them, then runs with their extensions", async () => {
    let release!: (extensions: HostExtensions) => void;
    const published: string[] = [];
    const host = await open(() => new Promise((resolve) => (release = resolve)));
    const running = host.runTurn(turn);
    await Bun.sleep(5);
    expect(host.extensions.state).toBe("loading");
    release({ events: { publish: (topic) => void published.push(topic) } });
    expect((await running).text.length).toBeGreaterThan(0);
    expect(host.extensions.state).toBe("ready");
    expect(published).toContain("prx.lifecycle.agent_start");
  });

  test("a failed plugin start makes /health 503 and turns fail with PLUGIN_LOAD (503)", async () => {
    const host = await open(async () => {
      throw new Error("broken manifest");
    });
    const failure = await host.loadExtensions().catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: "PLUGIN_LOAD", status: 503 });
    expect(host.extensions).toEqual({ state: "failed", error: "broken manifest" });
    const health = await gatewayOf(host)("/health");
    expect(health.status).toBe(503);
    expect((await json(health)).checks.plugins).toEqual({
      ok: false,
      detail: "plugin runtime failed to start: broken manifest",
    });
    expect(await host.runTurn(turn).catch((error: unknown) => error)).toMatchObject({ code: "PLUGIN_LOAD" });
  });

  test("not deferred when the configuration needs a plugin at open (a wasm: memory backend)", async () => {
    const host = await open(async () => ({ storage: () => new NoneMemory() }), { memory: { backend: "wasm:notes" } });
    expect(host.extensions.state).toBe("ready");
    expect(host.memory.name).toBe("none");
  });

  test("after close, a deferred load is refused instead of touching the closed database", async () => {
    const host = await open(pluginExtensions);
    hosts.splice(hosts.indexOf(host), 1);
    await host.close();
    expect(await host.loadExtensions().catch((error: unknown) => error)).toMatchObject({ code: "ABORTED" });
  });
});
