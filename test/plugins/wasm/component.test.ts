import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setLogLevel } from "../../../src/core/logger.ts";
import { isPrxError } from "../../../src/core/errors.ts";
import { transpileCount, wasmLoader } from "../../../src/plugins/wasm/index.ts";
import type { PluginInstance } from "../../../src/plugins/types.ts";
import { buildComponent, kvProbeWat, kvProbeWit } from "./build-helpers.ts";
import { type TestHost, admitted, makeHost, removeDir, failure } from "./helpers.ts";

let t: TestHost;
let echo: PluginInstance;
const echoCap = { type: "tool" as const, name: "echo_upper" };

beforeAll(async () => {
  setLogLevel("info");
  t = makeHost();
  echo = await wasmLoader.load(admitted("echo-tool"), t.host);
});

afterAll(async () => {
  await echo.release();
  t.close();
  removeDir(t.root);
});

describe("component loader", () => {
  test("get-spec and execute map WIT records to plain objects", async () => {
    expect(await echo.invoke(echoCap, "get-spec", [])).toEqual({
      name: "echo_upper",
      description: "Upper-cases its input",
      parametersSchema: '{"type":"object","properties":{"text":{"type":"string"}}}',
    });
    expect(await echo.invoke(echoCap, "execute", ["héllo wasm"])).toEqual({
      success: true,
      output: "HéLLO WASM",
      error: undefined,
    });
  });

  test("guest log lines reach the host logger under the plugin's name", async () => {
    await echo.invoke(echoCap, "execute", ["x"]);
    expect(t.logs.some((l) => l.includes("[test.plugin.echo-tool] echo_upper called"))).toBe(true);
  });

  test("concurrent calls queue on the instance and all complete in order", async () => {
    const inputs = Array.from({ length: 50 }, (_, i) => `call-${i}`);
    const results = (await Promise.all(inputs.map((s) => echo.invoke(echoCap, "execute", [s])))) as {
      output: string;
    }[];
    expect(results.map((r) => r.output)).toEqual(inputs.map((s) => s.toUpperCase()));
  });

  test("an unknown capability is PLUGIN_NOT_FOUND", async () => {
    const error = await failure(echo.invoke({ type: "tool", name: "nope" }, "execute", [""]));
    expect(isPrxError(error, "PLUGIN_NOT_FOUND")).toBe(true);
  });

  test("second load of an unchanged component hits the transpile cache; the cache is on disk", async () => {
    const before = transpileCount();
    const again = await wasmLoader.load(admitted("echo-tool"), t.host);
    expect(transpileCount()).toBe(before);
    expect(await again.invoke(echoCap, "execute", ["a"])).toMatchObject({ output: "A" });
    await again.release();
    const cached = readdirSync(join(t.host.workspace.cacheDir, "wasm"));
    expect(cached.length).toBeGreaterThan(0);
    expect(existsSync(join(t.host.workspace.cacheDir, "wasm", cached[0]!, "meta.json"))).toBe(true);
  });

  test("a new process reuses the on-disk transpile and instrumentation caches (restart)", async () => {
    const script = `
      import { wasmLoader, transpileCount, instrumentCount } from "${join(import.meta.dir, "../../../src/plugins/wasm/index.ts")}";
      import { admitted, makeHost } from "${join(import.meta.dir, "helpers.ts")}";
      const t = makeHost({ root: ${JSON.stringify(t.root)} });
      const inst = await wasmLoader.load(admitted("echo-tool"), t.host);
      const out = await inst.invoke({ type: "tool", name: "echo_upper" }, "execute", ["restart"]);
      await inst.release();
      console.log(JSON.stringify({ transpiles: transpileCount(), instrumentations: instrumentCount(), output: out.output }));`;
    const proc = Bun.spawnSync([process.execPath, "-e", script], { stderr: "pipe" });
    expect(proc.stderr.toString()).toBe("");
    expect(JSON.parse(proc.stdout.toString().trim())).toEqual({ transpiles: 0, instrumentations: 0, output: "RESTART" });
  });

  test("release waits for in-flight calls and is idempotent; calls after release fail", async () => {
    const inst = await wasmLoader.load(admitted("echo-tool"), t.host);
    const pending = inst.invoke(echoCap, "execute", ["late"]);
    await Promise.all([inst.release(), inst.release()]);
    expect(await pending).toMatchObject({ output: "LATE" });
    const error = await failure(inst.invoke(echoCap, "execute", ["x"]));
    expect(isPrxError(error, "PLUGIN_NOT_FOUND")).toBe(true);
  });
});

describe("WIT versions", () => {
  const dir = mkdtempSync(join(tmpdir(), "prx-wit-"));
  afterAll(() => removeDir(dir));

  test("imports without the @0.1.0 suffix are accepted and linked", async () => {
    const path = await buildComponent(
      join(dir, "unversioned"),
      kvProbeWat("prx:host/kv"),
      kvProbeWit(""),
      "prx:probe/probe",
    );
    const inst = await wasmLoader.load(
      { ...admitted("echo-tool"), name: "probe", entryPath: path, capabilities: [{ type: "tool", name: "probe" }] },
      t.host,
    );
    expect(await inst.invoke({ type: "tool", name: "probe" }, "execute", [""])).toMatchObject({
      success: true,
      output: "probe",
    });
    await inst.release();
  });

  test("an unsupported version of prx:host is rejected naming the interface and the supported version", async () => {
    const path = await buildComponent(
      join(dir, "v2"),
      kvProbeWat("prx:host/kv@0.2.0"),
      kvProbeWit("0.2.0"),
      "prx:probe/probe",
    );
    const error = await failure(
      wasmLoader.load(
        { ...admitted("echo-tool"), name: "probe2", entryPath: path, capabilities: [{ type: "tool", name: "probe" }] },
        t.host,
      ),
    );
    expect(isPrxError(error, "PLUGIN_LOAD")).toBe(true);
    expect(error.message).toContain("prx:host/kv@0.2.0");
    expect(error.message).toContain("prx:host/kv@0.1.0");
  });

  test("a capability whose export is missing fails the load", async () => {
    const error = await failure(
      wasmLoader.load({ ...admitted("echo-tool"), capabilities: [{ type: "cron", name: "nightly" }] }, t.host),
    );
    expect(isPrxError(error, "PLUGIN_LOAD")).toBe(true);
    expect(error.message).toContain("needs the export prx:plugin/cron-exports@0.1.0 (run)");
  });

  test("a core module admitted as a component is rejected", async () => {
    const error = await failure(wasmLoader.load({ ...admitted("core-tool"), kind: "wasm-component" }, t.host));
    expect(isPrxError(error, "PLUGIN_LOAD")).toBe(true);
    expect(error.message).toContain("is a module");
  });
});
