/**
 * Rebuilds every test plugin: `bun plugins/test-wasm/build.ts [name...]`.
 * WAT sources (src/*.wat) become components via jco's wasm-tools API (parse -> componentEmbed -> componentNew)
 * against the prx WIT, or stay core modules (JSON ABI); ts-tool is TypeScript built with componentize-qjs.
 * Each plugin lands in <name>/plugin.wasm beside a generated <name>/plugin.toml.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { componentEmbed, componentNew, parse } from "@bytecodealliance/jco";
import { combinedWitSource } from "../../src/plugins/wasm/wit.ts";
import { PLUGINS, type TestPlugin, manifestFor } from "./plugins.ts";

const ROOT = import.meta.dir;
const WASI_WIT = readFileSync(join(ROOT, "src", "wasi-subset.wit"), "utf8");
const TEST_WIT = readFileSync(join(ROOT, "src", "test-worlds.wit"), "utf8");
export const WIT_SOURCE = combinedWitSource(`${WASI_WIT}\n${TEST_WIT}`);

/**
 * Macros: `;;@prelude` / `;;@component-prelude` include the shared allocator and helpers; `;;@post a b` exports
 * post-return functions that reset the heap after exports a and b; `;;@str $name "text"` lines become data
 * segments and `$name.ptr` / `$name.len` become i32 constants.
 */
export function expandWat(source: string): string {
  const prelude = readFileSync(join(ROOT, "src", "prelude.wat"), "utf8");
  const componentPrelude = readFileSync(join(ROOT, "src", "component-prelude.wat"), "utf8");
  let offset = 16;
  const consts = new Map<string, { ptr: number; len: number }>();
  const data: string[] = [];
  const body = source
    .replace(";;@prelude", prelude)
    .replace(";;@component-prelude", componentPrelude)
    .replace(/;;@post ([^\n]+)/, (_, names: string) =>
      names
        .trim()
        .split(/\s+/)
        .map((n) => `(func (export "cabi_post_${n}") (param i32) (call $reset))`)
        .join("\n  "),
    )
    .replace(/^\s*;;@str (\$[\w-]+) "((?:[^"\\]|\\.)*)"\s*$/gm, (_, name: string, text: string) => {
      const len = watStringLength(text);
      consts.set(name, { ptr: offset, len });
      data.push(`  (data (i32.const ${offset}) "${text}")`);
      offset = (offset + len + 7) & ~7;
      if (offset >= 4096) throw new Error("static strings overflow the 4 KiB data area");
      return "";
    });
  const expanded = body.replace(/(\$[\w-]+)\.(ptr|len)\b/g, (m, name: string, field: "ptr" | "len") => {
    const c = consts.get(name);
    return c ? `(i32.const ${c[field]})` : m;
  });
  const close = expanded.lastIndexOf(")");
  return `${expanded.slice(0, close)}${data.join("\n")}\n)`;
}

function watStringLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\") {
      const next = text[i + 1]!;
      i += /[0-9a-fA-F]/.test(next) ? 2 : 1;
    }
    n++;
  }
  return n;
}

async function buildOne(p: TestPlugin): Promise<Uint8Array> {
  if (p.source.endsWith(".ts")) {
    const { componentize } = await import("componentize-qjs");
    const ts = readFileSync(join(ROOT, p.source), "utf8");
    const js = new Bun.Transpiler({ loader: "ts" }).transformSync(ts);
    // componentize-qjs reads the WIT from a path
    const tmp = mkdtempSync(join(tmpdir(), "prx-qjs-"));
    const witPath = join(tmp, "world.wit");
    writeFileSync(witPath, WIT_SOURCE);
    const { component } = await componentize({ witPath, jsSource: js, world: p.world, sync: true });
    rmSync(tmp, { recursive: true, force: true });
    return new Uint8Array(component);
  }
  const core = await parse(expandWat(readFileSync(join(ROOT, "src", p.source), "utf8")));
  if (p.kind === "module") return core;
  const embedded = await componentEmbed({ binary: core, witSource: WIT_SOURCE, world: p.world });
  return componentNew(embedded);
}

if (import.meta.main) {
  const only = new Set(process.argv.slice(2));
  for (const p of PLUGINS) {
    if (only.size > 0 && !only.has(p.dir)) continue;
    const started = performance.now();
    const wasm = await buildOne(p);
    mkdirSync(join(ROOT, p.dir), { recursive: true });
    writeFileSync(join(ROOT, p.dir, "plugin.wasm"), wasm);
    writeFileSync(join(ROOT, p.dir, "plugin.toml"), manifestFor(p));
    console.log(`${p.dir}: ${wasm.length} bytes (${p.kind}) in ${(performance.now() - started).toFixed(0)} ms`);
  }
}
