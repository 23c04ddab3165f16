import { componentEmbed, componentNew, parse } from "@bytecodealliance/jco";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expandWat } from "../../fixtures/test-wasm/build.ts";

/** Build a one-off component in a test (e.g. against another version of the prx WIT) into dir/plugin.wasm. */
export async function buildComponent(dir: string, wat: string, witSource: string, world: string): Promise<string> {
  const core = await parse(expandWat(wat));
  const component = await componentNew(await componentEmbed({ binary: core, witSource, world }));
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "plugin.wasm");
  writeFileSync(path, component);
  return path;
}

/** A tool whose execute calls kv.get through an import named `kvName` (any version or none). */
export function kvProbeWat(kvName: string): string {
  return `(module
  (import "${kvName}" "get" (func $kv_get (param i32 i32 i32)))
  ;;@prelude
  ;;@component-prelude
  ;;@post prx:plugin/tool-exports@0.1.0#get-spec prx:plugin/tool-exports@0.1.0#execute
  ;;@str $name "probe"
  ;;@str $key "k"
  (func (export "prx:plugin/tool-exports@0.1.0#get-spec") (result i32)
    (call $spec $name.ptr $name.len $name.ptr $name.len $name.ptr $name.len))
  (func (export "prx:plugin/tool-exports@0.1.0#execute") (param $p i32) (param $n i32) (result i32)
    (local $r i32)
    (local.set $r (call $malloc (i32.const 12)))
    (call $kv_get $key.ptr $key.len (local.get $r))
    (call $result (i32.const 1) $name.ptr $name.len (i32.const 0) (i32.const 0) (i32.const 0)))
)`;
}

/** WIT of a tool world importing kv from a prx:host package at `version` ("" = unversioned). */
export function kvProbeWit(version: string): string {
  const at = version ? `@${version}` : "";
  return `package prx:probe;
package prx:host${at} {
  interface kv {
    get: func(key: string) -> option<list<u8>>;
  }
}
package prx:plugin@0.1.0 {
  interface tool-exports {
    record tool-spec { name: string, description: string, parameters-schema: string }
    record plugin-result { success: bool, output: string, error: option<string> }
    get-spec: func() -> tool-spec;
    execute: func(args: string) -> plugin-result;
  }
}
world probe {
  import prx:host/kv${at};
  export prx:plugin/tool-exports@0.1.0;
}
`;
}
