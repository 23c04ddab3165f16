import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isPrxError } from "../../../src/core/errors.ts";
import { combinedWitSource } from "../../../src/plugins/wasm/wit.ts";
import { wasmLoader } from "../../../src/plugins/wasm/index.ts";
import { buildComponent } from "./build-helpers.ts";
import { type TestHost, admitted, failure, makeHost, removeDir } from "./helpers.ts";

// Components in shapes other than the contract's: world-level functions (an older reading of it), an export
// interface missing a function, and one component serving two capabilities whose interfaces share a function name.
const OLD_SHAPE_WIT = `package prx:old;
world tool {
  record tool-spec { name: string, description: string, parameters-schema: string }
  record tool-result { success: bool, output: string, error: option<string> }
  export get-spec: func() -> tool-spec;
  export execute: func(args: string) -> tool-result;
}
`;

const SPEC_ONLY_WIT = `package prx:partial;
package prx:plugin@0.1.0 {
  interface tool-exports {
    record tool-spec { name: string, description: string, parameters-schema: string }
    get-spec: func() -> tool-spec;
  }
}
world tool { export prx:plugin/tool-exports@0.1.0; }
`;

const specWat = (fn: string) => `(module
  ;;@prelude
  ;;@component-prelude
  ;;@post ${fn}
  ;;@str $name "t"
  (func (export "${fn}") (result i32) (call $spec $name.ptr $name.len $name.ptr $name.len $name.ptr $name.len))
  ${fn.includes("#") ? "" : `(func (export "execute") (param i32 i32) (result i32) unreachable)`}
)`;

const P = "prx:plugin/provider-exports@0.1.0";
const S = "prx:plugin/storage-exports@0.1.0";
const TWO_NAMES_WAT = `(module
  ;;@prelude
  ;;@component-prelude
  ;;@post ${P}#name ${S}#name
  ;;@str $p "from-provider"
  ;;@str $s "from-storage"
  (func $str (param $ptr i32) (param $len i32) (result i32)
    (local $r i32)
    (local.set $r (call $malloc (i32.const 8)))
    (i32.store (local.get $r) (local.get $ptr))
    (i32.store offset=4 (local.get $r) (local.get $len))
    (local.get $r))
  (func (export "${P}#name") (result i32) (call $str $p.ptr $p.len))
  (func (export "${P}#chat") (param i32 i32 i32 i32 f64) (result i32) unreachable)
  (func (export "${S}#name") (result i32) (call $str $s.ptr $s.len))
  (func (export "${S}#store-memory") (param i32 i32 i32 i32 i32 i32 i32 i32 i32) (result i32) unreachable)
  (func (export "${S}#recall-memory") (param i32 i32 i32 i32 i32 i32) (result i32) unreachable)
  (func (export "${S}#forget-memory") (param i32 i32) (result i32) unreachable)
  (func (export "${S}#count-memories") (result i32) unreachable)
  (func (export "${S}#health-check") (result i32) (i32.const 1))
)`;

let t: TestHost;
let dir: string;

beforeAll(() => {
  t = makeHost();
  dir = mkdtempSync(join(tmpdir(), "prx-shape-"));
});

afterAll(() => {
  t.close();
  removeDir(t.root);
  removeDir(dir);
});

const load = (name: string, entryPath: string, capabilities: { type: "tool" | "provider" | "storage"; name: string }[]) =>
  wasmLoader.load({ ...admitted("echo-tool"), name, entryPath, capabilities }, t.host);

describe("the shape of a component's exports", () => {
  test("world-level functions are refused naming the export interface expected and how to rebuild", async () => {
    const path = await buildComponent(join(dir, "old"), specWat("get-spec"), OLD_SHAPE_WIT, "prx:old/tool");
    const error = await failure(load("old-shape", path, [{ type: "tool", name: "t" }]));
    expect(isPrxError(error, "PLUGIN_LOAD")).toBe(true);
    expect(error.message).toBe(
      "plugin old-shape: capability tool t needs the export prx:plugin/tool-exports@0.1.0 (get-spec, execute), " +
        "which the component does not have; it exports get-spec, execute as world-level functions instead",
    );
    const hint = (error as { hint?: string }).hint ?? "";
    expect(hint).toContain("--world-name tool");
    expect(hint).toContain("export const toolExports");
  });

  test("an export interface without one of the capability's functions is refused naming it", async () => {
    const path = await buildComponent(
      join(dir, "partial"),
      specWat("prx:plugin/tool-exports@0.1.0#get-spec"),
      SPEC_ONLY_WIT,
      "prx:partial/tool",
    );
    const error = await failure(load("partial", path, [{ type: "tool", name: "t" }]));
    expect(isPrxError(error, "PLUGIN_LOAD")).toBe(true);
    expect(error.message).toContain("its export prx:plugin/tool-exports@0.1.0 lacks execute");
  });

  test("each capability calls into its own export interface, even where function names repeat", async () => {
    const wit = combinedWitSource(`package prx:two@0.1.0 {
  world both { export prx:plugin/provider-exports@0.1.0; export prx:plugin/storage-exports@0.1.0; }
}`);
    const path = await buildComponent(join(dir, "two"), TWO_NAMES_WAT, wit, "prx:two/both@0.1.0");
    const provider = { type: "provider" as const, name: "p" };
    const storage = { type: "storage" as const, name: "s" };
    const inst = await load("two", path, [provider, storage]);
    try {
      expect(await inst.invoke(provider, "name", [])).toBe("from-provider");
      expect(await inst.invoke(storage, "name", [])).toBe("from-storage");
      expect(await inst.invoke(storage, "health-check", [])).toBe(true);
    } finally {
      await inst.release();
    }
  });
});
