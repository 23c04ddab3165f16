/**
 * The gateway listens before its host and routes are built: /health answers "starting" from the database and the
 * provider configuration, other requests wait for the full gateway (or for the start's failure), and the early
 * health answers reach the access log once the gateway serves.
 */
import { Database } from "bun:sqlite";
import { sqliteStorage } from "../../src/storage/index.ts";
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { ConfigSchema } from "../../src/config/schema.ts";
import type { AccessEntry } from "../../src/gateway/access-log.ts";
import { listenEarly, type EarlyListener } from "../../src/gateway/early.ts";
import { startGatewayBinary, runPrx, tempWorkspace } from "../helpers/binary.ts";

setDefaultTimeout(60_000);

const OFFLINE = ConfigSchema.parse({ default_provider: "off", default_model: "m", providers: { off: { kind: "offline" } } });
const KEYED = ConfigSchema.parse({
  default_provider: "cloud",
  default_model: "m",
  providers: { cloud: { kind: "openai-compatible", base_url: "http://127.0.0.1:9/v1", api_key_env: "PRX_TEST_UNSET_KEY" } },
});

const open: EarlyListener[] = [];
afterEach(async () => {
  for (const listener of open.splice(0)) await listener.server.stop(true);
});

function listen(config = OFFLINE, db = new Database(":memory:")): { listener: EarlyListener; url: string } {
  const listener = listenEarly({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 10,
    maxRequestBodySize: 1024,
    storage: sqliteStorage(db),
    config,
    env: {},
    configPath: null,
  });
  open.push(listener);
  return { listener, url: `http://127.0.0.1:${listener.server.port}` };
}

describe("the early listener", () => {
  test("/health is 200 'starting' with the database and provider checks; other requests wait for the full gateway", async () => {
    const { listener, url } = listen();
    const health = await fetch(`${url}/health`, { headers: { "x-request-id": "early-1" } });
    expect(health.status).toBe(200);
    expect(health.headers.get("x-request-id")).toBe("early-1");
    const body = (await health.json()) as { status: string; checks: Record<string, { ok: boolean; detail?: string }> };
    expect(body.status).toBe("ok");
    expect(body.checks.database).toEqual({ ok: true });
    expect(body.checks.providers).toEqual({ ok: true, detail: "off/m" });
    expect(body.checks.gateway!.detail).toStartWith("starting");

    let answered = false;
    const waiting = fetch(`${url}/api/status`).then(async (r) => ((answered = true), await r.text()));
    await listener.needed(60_000); // resolved by that request, not by the timer
    await Bun.sleep(20);
    expect(answered).toBe(false);
    listener.serve({ routes: {}, fetch: (request) => new Response(`full: ${new URL(request.url).pathname}`) });
    expect(await waiting).toBe("full: /api/status");
    expect(await (await fetch(`${url}/health`)).text()).toBe("full: /health");

    const entries: AccessEntry[] = [];
    listener.report((entry) => entries.push(entry));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ method: "GET", path: "/health", status: 200, id: "early-1", client: "127.0.0.1" });
  });

  test("a misconfigured default provider or an unreachable database is 503, as the full /health says", async () => {
    const keyed = listen(KEYED);
    const health = await fetch(`${keyed.url}/health`);
    expect(health.status).toBe(503);
    const body = (await health.json()) as { checks: Record<string, { ok: boolean; detail?: string }> };
    expect(body.checks.providers!.ok).toBe(false);
    expect(body.checks.providers!.detail).toContain("PRX_TEST_UNSET_KEY");

    const db = new Database(":memory:");
    const closed = listen(OFFLINE, db);
    db.close();
    const down = await fetch(`${closed.url}/health`);
    expect(down.status).toBe(503);
    expect(((await down.json()) as { checks: { database: { detail: string } } }).checks.database.detail).toContain("database unreachable");
  });

  test("a start that fails answers the waiting requests 503 naming why, and stops listening", async () => {
    const { listener, url } = listen();
    const waiting = fetch(`${url}/v1/models`);
    await listener.needed(60_000);
    await listener.fail(new Error("the model table is broken"));
    const refused = await waiting;
    expect(refused.status).toBe(503);
    expect(await refused.text()).toContain("the gateway failed to start: the model table is broken");
    expect(await fetch(`${url}/health`).then(() => "answered", () => "refused")).toBe("refused");
  });

  test("without requests the host opens after the delay", async () => {
    const { listener } = listen();
    const started = performance.now();
    await listener.needed(30);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });
});

/** `prx gateway --port 0` in `dir`, once it has printed its listening line. */
describe("prx gateway (binary)", () => {
  test("a start that fails after listening exits 1 with the error; the early /health lines reach the access log", async () => {
    const ws = tempWorkspace(
      'default_provider = "off"\ndefault_model = "m"\n[providers.off]\nkind = "offline"\n[gateway]\nmodel_aliases = { "gpt-4o" = "nowhere" }\n',
    );
    try {
      const run = await runPrx(["gateway", "--port", "0", "-w", ws.dir], { env: { HOME: ws.dir } });
      expect(run.code).toBe(1);
      expect(run.stdout).toContain("prx gateway listening on");
      expect(run.stderr).toContain("nowhere");
    } finally {
      ws.cleanup();
    }
    const ok = tempWorkspace('default_provider = "off"\ndefault_model = "m"\n[providers.off]\nkind = "offline"\n');
    try {
      const { proc, url } = await startGatewayBinary(ok.dir, {}, "listening");
      let seen = "";
      // right after listening: the early answer (the host opens 25 ms later unless a request needs it)
      const early = await fetch(`${url}/health`, { headers: { "x-request-id": "first-check" } });
      expect(((await early.json()) as { checks: { gateway?: { detail: string } } }).checks.gateway?.detail).toStartWith("starting");
      // the access log is written once the full gateway serves: read stderr until its line for that request
      const errors = (proc.stderr as ReadableStream<Uint8Array>).getReader();
      let stderr = "";
      const deadline = Date.now() + 20_000;
      while (!stderr.includes('"first-check"') && Date.now() < deadline) {
        const chunk = await errors.read();
        if (chunk.done) break;
        stderr += new TextDecoder().decode(chunk.value);
      }
      proc.kill("SIGTERM");
      await proc.exited;
      expect(stderr).toMatch(/GET \/health 200 .*"id":"first-check"/);
    } finally {
      ok.cleanup();
    }
  });

  test("SIGTERM right after the listening line (the rest still being built) stops the gateway cleanly", async () => {
    const ws = tempWorkspace('default_provider = "off"\ndefault_model = "m"\n[providers.off]\nkind = "offline"\n');
    try {
      const { proc } = await startGatewayBinary(ws.dir, {}, "listening");
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
      expect(proc.signalCode).toBeNull();
    } finally {
      ws.cleanup();
    }
  });
});
