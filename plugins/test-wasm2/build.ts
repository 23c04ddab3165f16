/**
 * Rebuilds the non-tool capability test plugins: `bun plugins/test-wasm2/build.ts [name...]`.
 * WAT sources go through the pipeline of plugins/test-wasm/build.ts (its macro expansion, then jco's
 * parse -> componentEmbed -> componentNew); TypeScript sources are bundled with Bun and built with componentize-qjs.
 * Each plugin lands in <name>/plugin.wasm beside a generated <name>/plugin.toml.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { componentEmbed, componentNew, parse } from "@bytecodealliance/jco";
import { combinedWitSource } from "../../src/plugins/wasm/wit.ts";
import { expandWat } from "../test-wasm/build.ts";
import { PLUGINS2, manifestFor, type TestPlugin2 } from "./plugins.ts";

const ROOT = import.meta.dir;
export const WIT2_SOURCE = combinedWitSource(readFileSync(join(ROOT, "src", "worlds.wit"), "utf8"));

async function bundle(entry: string): Promise<string> {
  const result = await Bun.build({ entrypoints: [entry], format: "esm", target: "browser", external: ["prx:host/*"] });
  if (!result.success) throw new Error(`bundling ${entry} failed: ${result.logs.join("\n")}`);
  return result.outputs[0]!.text();
}

export async function buildPlugin(p: TestPlugin2): Promise<Uint8Array> {
  const source = join(ROOT, "src", p.source);
  if (p.source.endsWith(".ts")) {
    const { componentize } = await import("componentize-qjs");
    const buildDir = join(ROOT, "build");
    mkdirSync(buildDir, { recursive: true });
    const witPath = join(buildDir, "world.wit");
    writeFileSync(witPath, WIT2_SOURCE);
    const js = await bundle(source);
    writeFileSync(join(buildDir, p.source.replace(/\.ts$/, ".js")), js);
    const { component } = await componentize({ witPath, jsSource: js, world: p.world, sync: true });
    return new Uint8Array(component);
  }
  const core = await parse(expandWat(readFileSync(source, "utf8")));
  const embedded = await componentEmbed({ binary: core, witSource: WIT2_SOURCE, world: p.world });
  return componentNew(embedded);
}

if (import.meta.main) {
  const only = new Set(process.argv.slice(2));
  for (const p of PLUGINS2) {
    if (only.size > 0 && !only.has(p.dir)) continue;
    const started = performance.now();
    const wasm = await buildPlugin(p);
    mkdirSync(join(ROOT, p.dir), { recursive: true });
    writeFileSync(join(ROOT, p.dir, "plugin.wasm"), wasm);
    writeFileSync(join(ROOT, p.dir, "plugin.toml"), manifestFor(p));
    console.log(`${p.dir}: ${wasm.length} bytes in ${(performance.now() - started).toFixed(0)} ms`);
  }
}
