/**
 * A component that differs from one transpiled before only in what its core modules compute and hold (a rebuild of a
 * kit plugin) is transpiled from that output: the same files jco writes for it, without running jco; and only its
 * core modules that changed are instrumented again.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cachedArtifactCount, compileCount, prepareComponent } from "../../../src/plugins/wasm/artifact-cache.ts";
import { readSections, SectionId } from "../../../src/plugins/wasm/instrument/sections.ts";
import { instrumentCount } from "../../../src/plugins/wasm/instrument-cache.ts";
import { transpileCached, transpileCount } from "../../../src/plugins/wasm/transpile.ts";
import { componentShape } from "../../../src/plugins/wasm/transpile-shape.ts";

const FIXTURE = join(import.meta.dir, "../../fixtures/test-wasm/ts-tool/plugin.wasm");
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function cacheDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "prx-shape-"));
  dirs.push(dir);
  return dir;
}

/** A copy of `wasm` with the last byte of one section of its first core module holding such a section changed. */
function withSectionByteChanged(wasm: Uint8Array, id: number): Uint8Array {
  const copy = new Uint8Array(wasm);
  for (const module of componentShape(wasm)!.modules) {
    const section = readSections(module, "fixture").find((s) => s.id === id);
    if (!section) continue;
    const at = module.byteOffset - wasm.byteOffset + section.end - 1;
    copy[at] = copy[at]! ^ 0x01;
    return copy;
  }
  throw new Error(`no core module of the fixture has section ${id}`);
}

function files(dir: string, under = ""): string[] {
  return readdirSync(join(dir, under))
    .flatMap((name) => (statSync(join(dir, under, name)).isDirectory() ? files(dir, join(under, name)) : [join(under, name)]))
    .sort();
}

test("a component whose core modules' data changed has the same shape; one whose exports changed does not", () => {
  const wasm = new Uint8Array(readFileSync(FIXTURE));
  const shape = componentShape(wasm)!;
  expect(shape.modules.length).toBeGreaterThan(0);
  expect(componentShape(withSectionByteChanged(wasm, SectionId.data))!.digest).toBe(shape.digest);
  expect(componentShape(withSectionByteChanged(wasm, SectionId.code))!.digest).toBe(shape.digest);
  expect(componentShape(withSectionByteChanged(wasm, SectionId.export))!.digest).not.toBe(shape.digest);
  expect(componentShape(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]))).toBeNull();
});

test("a rebuild with other data is transpiled from the first build's output: the files jco writes for it, jco not run", async () => {
  const first = new Uint8Array(readFileSync(FIXTURE));
  const rebuilt = withSectionByteChanged(first, SectionId.data);
  const shared = cacheDir();
  await transpileCached("ts-tool", first, shared, "local");
  const runs = transpileCount();
  const reshaped = await transpileCached("ts-tool", rebuilt, shared, "local");
  expect(transpileCount()).toBe(runs);
  expect(reshaped.transpiled).toBe(false);

  const fresh = await transpileCached("ts-tool", rebuilt, cacheDir(), "local");
  expect(fresh.transpiled).toBe(true);
  expect(reshaped.meta).toEqual(fresh.meta);
  expect(files(reshaped.dir)).toEqual(files(fresh.dir));
  for (const file of files(fresh.dir)) expect(readFileSync(join(reshaped.dir, file)).equals(readFileSync(join(fresh.dir, file)))).toBe(true);
});

test("when the output the shape record names is gone, the rebuild is transpiled by jco", async () => {
  const first = new Uint8Array(readFileSync(FIXTURE));
  const rebuilt = withSectionByteChanged(first, SectionId.data);
  const shared = cacheDir();
  const made = await transpileCached("ts-tool", first, shared, "local");
  rmSync(made.dir, { recursive: true, force: true });
  const runs = transpileCount();
  const again = await transpileCached("ts-tool", rebuilt, shared, "local");
  expect(again.transpiled).toBe(true);
  expect(transpileCount()).toBe(runs + 1);
});

test("a cache file cut short (a shape record, a cached output's meta.json) is a miss: the output is made again", async () => {
  const first = new Uint8Array(readFileSync(FIXTURE));
  const shared = cacheDir();
  const made = await transpileCached("ts-tool", first, shared, "local");
  const [record] = readdirSync(join(shared, "wasm-shapes"));
  writeFileSync(join(shared, "wasm-shapes", record!), '{"format":');
  const runs = transpileCount();
  const rebuilt = await transpileCached("ts-tool", withSectionByteChanged(first, SectionId.data), shared, "local");
  expect(rebuilt.transpiled).toBe(true);
  expect(transpileCount()).toBe(runs + 1);
  // the rebuild's run recorded the shape again: the first build's output comes back from it
  writeFileSync(join(made.dir, "meta.json"), "{");
  const again = await transpileCached("ts-tool", first, shared, "local");
  expect(again.meta).toEqual(made.meta);
  expect(transpileCount()).toBe(runs + 1);
});

test("a rebuild instruments only the core module that changed: the others' instrumented bytes are found by content", async () => {
  const first = new Uint8Array(readFileSync(FIXTURE));
  const rebuilt = withSectionByteChanged(first, SectionId.data);
  const shared = cacheDir();
  (await prepareComponent("ts-tool", first, shared, 64, "interrupt", "local")).done();
  const before = instrumentCount();
  (await prepareComponent("ts-tool", rebuilt, shared, 64, "interrupt", "local")).done();
  expect(instrumentCount()).toBe(before + 1);
});

test("a rebuild prepared while the first build runs compiles only the core module that changed; the last use lets go of every module", async () => {
  const first = new Uint8Array(readFileSync(FIXTURE));
  const rebuilt = withSectionByteChanged(first, SectionId.data);
  const shared = cacheDir();
  const held = cachedArtifactCount();
  const running = await prepareComponent("ts-tool", first, shared, 64, "interrupt", "local");
  const files = Object.keys(running.prepared.modules);
  expect(files.length).toBeGreaterThan(1);
  expect(cachedArtifactCount()).toBe(held + 1 + files.length); // the component and each of its core modules
  const compiled = compileCount();
  const next = await prepareComponent("ts-tool", rebuilt, shared, 64, "interrupt", "local");
  expect(compileCount()).toBe(compiled + 1);
  const same = files.filter((file) => next.prepared.modules[file] === running.prepared.modules[file]);
  expect(same.length).toBe(files.length - 1);
  expect(cachedArtifactCount()).toBe(held + 2 + files.length + 1);
  running.done();
  expect(cachedArtifactCount()).toBe(held + 1 + files.length);
  next.done();
  expect(cachedArtifactCount()).toBe(held);
  // nothing holds them any more: the next preparation compiles every module again
  const again = await prepareComponent("ts-tool", first, shared, 64, "interrupt", "local");
  expect(compileCount()).toBe(compiled + 1 + files.length);
  again.done();
  expect(cachedArtifactCount()).toBe(held);
});

test("a component one of whose core modules is refused holds none of the others", async () => {
  const first = new Uint8Array(readFileSync(FIXTURE));
  const broken = withSectionByteChanged(first, SectionId.code);
  const shared = cacheDir();
  (await prepareComponent("ts-tool", first, shared, 64, "interrupt", "local")).done(); // the broken one takes its shape, not jco
  const held = cachedArtifactCount();
  await expect(prepareComponent("ts-tool", broken, shared, 64, "interrupt", "local")).rejects.toThrow(/^plugin ts-tool \(component\.core\d*\.wasm\): /);
  expect(cachedArtifactCount()).toBe(held);
  const fine = await prepareComponent("ts-tool", first, shared, 64, "interrupt", "local");
  expect(cachedArtifactCount()).toBe(held + 1 + Object.keys(fine.prepared.modules).length);
  fine.done();
  expect(cachedArtifactCount()).toBe(held);
});
