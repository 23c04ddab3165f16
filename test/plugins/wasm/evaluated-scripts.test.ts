/**
 * A sandbox Worker evaluates a component's JS once per script (the SHA-256 of its text): artifacts whose text is the
 * same (a rebuild whose core modules alone changed) share the evaluation, each with its own core modules.
 */
import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { ComponentArtifact, EvaluatedScripts } from "../../../src/plugins/wasm/guest/component.ts";

const counter = `__evaluatedScripts${process.pid}`;
const g = globalThis as unknown as Record<string, number>;

/** jco's shape: a module exporting instantiate(getCoreModule, ...); its top level counts its evaluations. */
function script(tag: string): { js: string; hash: string } {
  const js = `globalThis.${counter} = (globalThis.${counter} ?? 0) + 1;
    export async function instantiate(getCoreModule) { return { tag: ${JSON.stringify(tag)}, core: await getCoreModule("core.wasm") }; }`;
  return { js, hash: createHash("sha256").update(js).digest("hex") };
}

test("artifacts of the same script share one evaluation, each instantiating its own core modules; another script is evaluated", async () => {
  const scripts = new EvaluatedScripts();
  const first = new WebAssembly.Module(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  const rebuilt = new WebAssembly.Module(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  const a = script("a");
  const before = g[counter] ?? 0;
  const build1 = new ComponentArtifact(a.js, { "core.wasm": first }, "p", a.hash, scripts);
  const build2 = new ComponentArtifact(a.js, { "core.wasm": rebuilt }, "p", a.hash, scripts);
  const run = async (artifact: ComponentArtifact) =>
    (await artifact.instantiateFunction())((name) => artifact.coreModule(name), {}, async () => ({}) as WebAssembly.Instance);
  expect(await run(build1)).toEqual({ tag: "a", core: first });
  expect(await run(build2)).toEqual({ tag: "a", core: rebuilt });
  expect((await run(build2)).core).toBe(rebuilt);
  expect(g[counter]! - before).toBe(1);
  expect(scripts.size).toBe(1);
  const b = script("b");
  const other = new ComponentArtifact(b.js, { "core.wasm": first }, "q", b.hash, scripts);
  expect(await run(other)).toEqual({ tag: "b", core: first });
  expect(g[counter]! - before).toBe(2);
  expect(scripts.size).toBe(2);
});
