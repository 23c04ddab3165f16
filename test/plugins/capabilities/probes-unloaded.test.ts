/**
 * Probes of capabilities whose plugin failed to load say so ("<plugin> failed to load: <its load error>"), through
 * runProbe (what wasm_plugins_manage runs), POST /api/plugins/:name/probe and `prx plugins probe`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { PrxError } from "../../../src/core/errors.ts";
import { pluginRoutes } from "../../../src/gateway/routes/plugins.ts";
import { parseProbeRequest, runProbe } from "../../../src/plugins/probes/index.ts";
import { gatewayWithMounts } from "../../helpers/gateway-app.ts";
import { gateModule } from "../../fixtures/gate-middleware.ts";
import { body, failure, MANAGE_TOOL_OPT_IN, openScenario, type HostScenario } from "./helpers.ts";

const ROOT = resolve(import.meta.dir, "../../..");
const inbound = { text: "hi", channel: "api", user_id: "u1", session_id: "p", metadata: {} };

/** A core module with memory, alloc and dealloc but none of the exports its capabilities need: its load fails. */
const NO_EXPORTS = `(module (memory (export "memory") 1)
  (func (export "alloc") (param i32) (result i32) i32.const 0) (func (export "dealloc") (param i32 i32)))`;

async function writeBroken(pluginsDir: string, name: string, capability: string): Promise<void> {
  const dir = join(pluginsDir, name);
  mkdirSync(dir, { recursive: true });
  const { parse } = await import("@bytecodealliance/jco");
  writeFileSync(join(dir, "plugin.wasm"), await parse(NO_EXPORTS));
  writeFileSync(
    join(dir, "plugin.toml"),
    `[plugin]\nname = "${name}"\nversion = "0.1.0"\napi_version = "0.1.0"\nwasm = "plugin.wasm"\n\n[[capabilities]]\n${capability}\n`,
  );
}

let scenario: HostScenario;
let loadError: string;
beforeAll(async () => {
  scenario = await openScenario([], MANAGE_TOOL_OPT_IN);
  const { pluginsDir } = scenario.ws;
  await writeBroken(pluginsDir, "rate-limiter-middleware", 'type = "middleware"\nname = "rate-limit"');
  await writeBroken(pluginsDir, "nightly", 'type = "cron"\nname = "sweep"\nschedule = "0 3 * * *"');
  await writeBroken(pluginsDir, "brain", 'type = "provider"\nname = "brain"');
  await writeBroken(pluginsDir, "vault", 'type = "storage"\nname = "vault"');
  mkdirSync(join(pluginsDir, "gate"));
  writeFileSync(join(pluginsDir, "gate", "plugin.wasm"), await gateModule());
  writeFileSync(
    join(pluginsDir, "gate", "plugin.toml"),
    `[plugin]\nname = "gate"\nversion = "0.1.0"\napi_version = "0.1.0"\n\n[[capabilities]]\ntype = "middleware"\nname = "gate"\n`,
  );
  await scenario.opened.services.runtime.reload();
  const record = scenario.opened.services.runtime.current().plugin("rate-limiter-middleware")!;
  expect(record.state).toBe("error");
  // The probe names the plugin itself; the loader's "plugin <name>: " prefix is not repeated.
  loadError = record.error!.message.replace("plugin rate-limiter-middleware: ", "");
  expect(loadError).toBe("capability middleware rate-limit needs the export process (CORE-ABI.md)");
});
afterAll(() => scenario.close());

const probe = (raw: unknown, plugin?: string) => runProbe(scenario.opened.services, parseProbeRequest(raw, plugin));

describe("a probe whose plugin failed to load", () => {
  test("middleware_test names the plugin and its load error, not a missing capability", async () => {
    const error = await failure(probe({ action: "middleware_test", stage: "inbound", data: inbound }, "rate-limiter-middleware"));
    expect(error.message).toBe(`rate-limiter-middleware failed to load: ${loadError}`);
    expect(error.message).not.toContain("has no middleware capability");
    expect(error.status).toBe(409);
    expect(error.hint).toContain("prx plugins reload rate-limiter-middleware");
    const tool = await scenario.opened.host.tools.call(
      "wasm_plugins_manage",
      JSON.stringify({ action: "middleware_test", plugin: "rate-limiter-middleware", stage: "inbound", data: inbound }),
      { sessionId: "t", workspace: scenario.ws.root, signal: new AbortController().signal },
    );
    expect(tool.success).toBe(false);
    expect(tool.error).toContain(`middleware_test failed: rate-limiter-middleware failed to load: ${loadError}`);
  });

  test("the whole chain's middleware_test runs what loaded and lists what did not", async () => {
    const whole = await probe({ action: "middleware_test", stage: "inbound", data: inbound });
    expect((whole.result.steps as { plugin: string }[]).map((s) => s.plugin)).toEqual(["gate"]);
    expect(whole.result.not_loaded).toEqual([
      { plugin: "rate-limiter-middleware", error: `rate-limiter-middleware failed to load: ${loadError}` },
    ]);
  });

  test("cron_run, provider_chat and storage say the same of theirs", async () => {
    for (const name of ["nightly/sweep", "sweep", "nightly"]) {
      const cron = await failure(probe({ action: "cron_run", name }));
      expect(cron.message).toBe("nightly failed to load: capability cron sweep needs the export run (CORE-ABI.md)");
    }
    const chat = await failure(
      probe({ action: "provider_chat", name: "wasm:brain", messages: [{ role: "user", content: "hi" }] }),
    );
    expect(chat.message).toStartWith("brain failed to load: ");
    const store = await failure(probe({ action: "storage", name: "wasm:vault", op: "count" }));
    expect(store.message).toStartWith("vault failed to load: ");
    const scoped = await failure(probe({ action: "storage", name: "anything", op: "health" }, "vault"));
    expect(scoped.message).toStartWith("vault failed to load: ");
  });

  test("names no plugin claims keep their own errors", async () => {
    const cron = await failure(probe({ action: "cron_run", name: "nothing" }));
    expect(cron.code).toBe("PLUGIN_NOT_FOUND");
    const mw = await failure(probe({ action: "middleware_test", stage: "inbound", data: inbound }, "brain"));
    expect(mw.message).toStartWith("brain failed to load: ");
  });

  test("POST /api/plugins/:name/probe answers 409 with the load error", async () => {
    const { app } = gatewayWithMounts(scenario.opened.host, [pluginRoutes(() => scenario.opened.services)]);
    const res = await app.handle(
      new Request("http://local/api/plugins/rate-limiter-middleware/probe", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ action: "middleware_test", stage: "inbound", data: inbound }),
      }),
    );
    expect(res.status).toBe(409);
    const json = await body(res);
    expect(json.error.message).toBe(`rate-limiter-middleware failed to load: ${loadError}`);
  });

  test("prx plugins probe prints it and exits 1", async () => {
    const proc = Bun.spawn(
      [
        process.execPath,
        join(ROOT, "src/cli/main.ts"),
        "plugins",
        "probe",
        "middleware_test",
        JSON.stringify({ stage: "inbound", data: inbound }),
        "--plugin",
        "rate-limiter-middleware",
        "--workspace",
        scenario.ws.root,
      ],
      { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: scenario.ws.root, PRX_LOG: "silent" }, stdout: "pipe", stderr: "pipe" },
    );
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    expect(code).toBe(1);
    expect(stderr).toContain(`error: rate-limiter-middleware failed to load: ${loadError}`);
  });
});
