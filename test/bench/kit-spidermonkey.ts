/**
 * `bun test/bench/kit-spidermonkey.ts <plugin-dir> <out.wasm>`: the bundle `prx plugins build` makes of a kit plugin,
 * componentized by componentize-js (SpiderMonkey) instead, against the same WIT and world, for the kit bench. Prints
 * {"ms": <componentize-js time>, "bytes": <component size>}. Its own process: SpiderMonkey builds take ~800 MB.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { openFilesystemForTools } from "../fixtures/pdk-js/build.ts";
import { readKitManifest } from "../../src/plugins/kit/build/build.ts";
import { bundlePlugin } from "../../src/plugins/kit/build/bundle.ts";
import { witDirectory } from "../../src/plugins/kit/build/wit-dir.ts";
import { worldFor } from "../../src/plugins/kit/build/world.ts";

const [dirArg, out] = process.argv.slice(2);
if (!dirArg || !out) throw new Error("usage: bun test/bench/kit-spidermonkey.ts <plugin-dir> <out.wasm>");
const dir = resolve(dirArg);
const world = worldFor(readKitManifest(dir).capabilities.map((c) => c.type));
const bundle = await bundlePlugin(dir, join(dir, "src/plugin.ts"), world);
const js = join(dir, "bundle.js");
writeFileSync(js, bundle.js);
await openFilesystemForTools();
const { componentize } = await import("@bytecodealliance/componentize-js");
const started = performance.now();
const { component } = await componentize({ sourcePath: js, witPath: witDirectory(world.extraWit), worldName: world.name });
const ms = performance.now() - started;
writeFileSync(out, component);
console.log(JSON.stringify({ ms, bytes: component.length }));
