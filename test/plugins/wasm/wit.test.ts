import { describe, expect, test } from "bun:test";
import { parse } from "@bytecodealliance/jco";
import { isPrxError } from "../../../src/core/errors.ts";
import { inspectWasm } from "../../../src/plugins/wasm/index.ts";
import { describeFuel } from "../../../src/plugins/wasm/inspect.ts";
import { capModuleMemory } from "../../../src/plugins/wasm/memory-cap.ts";
import { checkInterfaceVersions, interfacesFromWit } from "../../../src/plugins/wasm/wit.ts";
import { admitted, failure } from "./helpers.ts";

describe("interface version checks", () => {
  const wit = `package root:component;

world root {
  import prx:host/kv@0.1.0;
  import wasi:cli/environment@0.2.12;
  export get-spec: func() -> tool-spec;
  export execute: func(args: string) -> tool-result;
}`;

  test("interfacesFromWit lists imports and exported functions", () => {
    expect(interfacesFromWit(wit)).toEqual({
      imports: ["prx:host/kv@0.1.0", "wasi:cli/environment@0.2.12"],
      exports: ["get-spec", "execute"],
    });
  });

  test("supported, unversioned and WASI names pass; other versions, unknown interfaces and packages fail", () => {
    const ok = (imports: string[]) => checkInterfaceVersions("p", { imports, exports: [] });
    expect(() => ok(["prx:host/kv@0.1.0", "prx:host/log", "wasi:io/streams@0.2.0"])).not.toThrow();
    expect(() => ok(["prx:host/kv@0.1.1"])).toThrow("supports prx:host/kv@0.1.0 only");
    expect(() => ok(["prx:host/files@0.1.0"])).toThrow("does not define");
    expect(() => ok(["acme:db/query@1.0.0"])).toThrow("which this host does not provide");
    expect(() => checkInterfaceVersions("p", { imports: [], exports: ["prx:plugin/tool@0.2.0"] })).toThrow(
      "supports prx:plugin/tool@0.1.0 only",
    );
  });
});

describe("memory cap", () => {
  test("adds a maximum to a memory without one and lowers a larger one; initial above the cap is rejected", async () => {
    for (const decl of ["(memory 2)", "(memory 2 1000)"]) {
      const bytes = await parse(`(module ${decl} (func (export "grow") (result i32) (memory.grow (i32.const 10))))`);
      const capped = capModuleMemory(bytes, 4, "t");
      const { instance } = await WebAssembly.instantiate(capped);
      const grow = instance.exports.grow as () => number;
      expect(grow()).toBe(-1);
    }
    const ok = await parse(`(module (memory 4) (func (export "grow") (result i32) (memory.grow (i32.const 1))))`);
    expect(((await WebAssembly.instantiate(capModuleMemory(ok, 4, "t"))).instance.exports.grow as () => number)()).toBe(
      -1,
    );
    expect(() => capModuleMemory(ok, 3, "t")).toThrow("initial memory");
  });
});

describe("inspectWasm (for prx plugins validate)", () => {
  test("a component: kind, interfaces, missing exports per capability, how max_fuel bounds its calls", async () => {
    const p = admitted("kv-tool");
    const report = await inspectWasm(
      p.name,
      p.entryPath,
      [
        { type: "tool", name: "remember" },
        { type: "cron", name: "c" },
      ],
      1000,
    );
    expect(report.kind).toBe("wasm-component");
    expect(report.imports).toEqual(["prx:host/kv@0.1.0"]);
    expect(report.missingExports).toEqual(["cron c: prx:plugin/cron-exports@0.1.0 (run)"]);
    expect(report.warnings).toEqual([]);
    expect(report.fuel).toBe(describeFuel(1000));
    expect(report.fuel).toContain("max_fuel = 1000 is enforced");
  });

  test("a core module: exports checked against the JSON ABI", async () => {
    const p = admitted("core-tool");
    const report = await inspectWasm(p.name, p.entryPath, [
      { type: "tool", name: "core_echo" },
      { type: "hook", name: "h" },
    ]);
    expect(report.kind).toBe("wasm-module");
    expect(report.imports).toEqual(["prx_host.call"]);
    expect(report.missingExports).toEqual(["hook h: on_event"]);
    expect(report.warnings).toEqual([]);
    expect(report.fuel).toBe(describeFuel(null));
    expect(report.fuel).toContain("no max_fuel: calls are bounded by max_execution_time_ms");
  });

  test("a file that is not wasm is PLUGIN_LOAD", async () => {
    const error = await failure(inspectWasm("x", import.meta.path, []));
    expect(isPrxError(error, "PLUGIN_LOAD")).toBe(true);
  });
});
