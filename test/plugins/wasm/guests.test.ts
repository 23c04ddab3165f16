import { beforeAll, describe, expect, test } from "bun:test";
import { isPrxError } from "../../../src/core/errors.ts";
import { setLogLevel } from "../../../src/core/logger.ts";
import { wasmLoader } from "../../../src/plugins/wasm/index.ts";
import { admitted, failure, hostPerFile } from "./helpers.ts";

const t = hostPerFile();
beforeAll(() => setLogLevel("info"));

describe("core module (JSON ABI)", () => {
  const cap = { type: "tool" as const, name: "core_echo" };

  test("round trip: spec, execute, a host call (kv.set) and an err result", async () => {
    const inst = await wasmLoader.load(admitted("core-tool"), t.host);
    expect(await inst.invoke(cap, "get-spec", [])).toEqual({
      name: "core_echo",
      description: "Echoes its input (core module)",
      parametersSchema: "{}",
    });
    expect(await inst.invoke(cap, "execute", ['say "hi" ✓'])).toEqual({ success: true, output: 'say "hi" ✓' });
    const row = t.db
      .query<{ value: Uint8Array }, [string, string]>("SELECT value FROM plugin_kv WHERE plugin = ? AND key = ?")
      .get("core-tool", "core-last");
    expect(new TextDecoder().decode(row!.value)).toBe('say "hi" ✓');
    const error = await failure(inst.invoke(cap, "execute", [""]));
    expect(isPrxError(error, "PLUGIN_ERROR")).toBe(true);
    expect(error.message).toBe("empty input");
    await inst.release();
  });

  test("a module without the ABI exports a capability needs fails the load", async () => {
    const error = await failure(
      wasmLoader.load(admitted("core-tool", { capabilities: [{ type: "hook", name: "h" }] }), t.host),
    );
    expect(isPrxError(error, "PLUGIN_LOAD")).toBe(true);
    expect(error.message).toContain("on_event");
  });
});

describe("component importing WASI 0.2.0", () => {
  test("loads, runs with no env and no preopens, and its stdout lands in the plugin log", async () => {
    const inst = await wasmLoader.load(admitted("wasi-tool"), t.host);
    expect(await inst.invoke({ type: "tool", name: "wasi_probe" }, "execute", [""])).toMatchObject({
      success: true,
      output: "sandboxed",
    });
    expect(t.logs.some((l) => l.includes("[test.plugin.wasi-tool] hello from wasi"))).toBe(true);
    await inst.release();
  });
});

describe("component built from TypeScript (componentize-qjs)", () => {
  test("executes, uses kv and log, and reports guest-side argument errors", async () => {
    const inst = await wasmLoader.load(admitted("ts-tool"), t.host);
    const cap = { type: "tool" as const, name: "ts_greet" };
    expect(await inst.invoke(cap, "get-spec", [])).toMatchObject({ name: "ts_greet" });
    expect(await inst.invoke(cap, "execute", ['{"name":"ada"}'])).toMatchObject({
      success: true,
      output: "hello ada #1",
    });
    expect(await inst.invoke(cap, "execute", ['{"name":"bob"}'])).toMatchObject({
      success: true,
      output: "hello bob #2",
    });
    expect(await inst.invoke(cap, "execute", ["not json"])).toMatchObject({
      success: false,
      error: "args must be a JSON object",
    });
    expect(t.logs.some((l) => l.includes("[test.plugin.ts-tool] greeting ada"))).toBe(true);
    await inst.release();
  });
});
