import { describe, expect, test } from "bun:test";
import { asyncImportNames } from "../../../src/plugins/wasm/host/index.ts";
import { cacheKey, needsAsyncExports } from "../../../src/plugins/wasm/transpile.ts";
import { PRX_WIT_VERSION } from "../../../src/plugins/wasm/wit.ts";

const KV_FUNCTIONS = ["get", "set", "delete", "list-keys"];
const kvNames = (names: string[]) => names.filter((name) => name.startsWith("prx:host/kv"));

describe("kv import lowering", () => {
  test("a kv served by the main thread is lowered async (JSPI), under both spellings", () => {
    const names = kvNames(asyncImportNames("host"));
    for (const fn of KV_FUNCTIONS) {
      expect(names).toContain(`prx:host/kv@${PRX_WIT_VERSION}#${fn}`);
      expect(names).toContain(`prx:host/kv#${fn}`);
    }
  });

  test("the sandbox's own SQLite kv is lowered sync; the other async host functions stay async", () => {
    expect(kvNames(asyncImportNames("local"))).toEqual([]);
    const others = (names: string[]) => names.filter((name) => !name.startsWith("prx:host/kv"));
    expect(others(asyncImportNames("local"))).toEqual(others(asyncImportNames("host")));
    expect(asyncImportNames("local")).toContain(`prx:host/http-outbound@${PRX_WIT_VERSION}#request`);
  });

  test("the two lowerings of one component are cached apart", () => {
    const wasm = new Uint8Array([0, 97, 115, 109, 13, 0, 1, 0]);
    expect(cacheKey(wasm, "local")).not.toBe(cacheKey(wasm, "host"));
    expect(cacheKey(wasm, "local")).toBe(cacheKey(wasm, "local"));
  });

  test("exports are promising only in a component importing a host function lowered async", () => {
    const exports = [`prx:plugin/tool-exports@${PRX_WIT_VERSION}`];
    const log = { imports: [`prx:host/log@${PRX_WIT_VERSION}`], exports };
    expect(needsAsyncExports(log, "host")).toBe(false);
    const http = { imports: [`prx:host/log@${PRX_WIT_VERSION}`, `prx:host/http-outbound@${PRX_WIT_VERSION}`], exports };
    expect(needsAsyncExports(http, "local")).toBe(true);
    // kv is async only when the main thread serves it
    const kv = { imports: [`prx:host/kv@${PRX_WIT_VERSION}`], exports };
    expect(needsAsyncExports(kv, "host")).toBe(true);
    expect(needsAsyncExports(kv, "local")).toBe(false);
  });
});
