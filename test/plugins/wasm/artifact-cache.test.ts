/**
 * The artifact cache shares one preparation between the plugins that load the same content at once; when it fails,
 * each other plugin prepares again by itself, so the error it gets names it (artifact-cache.ts use()).
 */
import { expect, test } from "bun:test";
import { cachedArtifactCount, compileCount, prepareModule } from "../../../src/plugins/wasm/artifact-cache.ts";
import { hostPerFile } from "./helpers.ts";

const t = hostPerFile();

/** Well formed (it instruments) but ill typed: a function declared to return i32 returns nothing. */
const illTyped = new Uint8Array([
  ...[0, 0x61, 0x73, 0x6d, 1, 0, 0, 0],
  ...[0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7f],
  ...[0x03, 0x02, 0x01, 0x00],
  ...[0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b],
]);

/** A valid core module whose content (a custom section) is its own. */
function tinyModule(tag: string): Uint8Array {
  const name = new TextEncoder().encode(tag);
  return new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 0, name.length + 1, name.length, ...name]);
}

const prepare = (plugin: string, bytes: Uint8Array) => prepareModule(plugin, bytes, t.host.workspace.cacheDir, 1, "interrupt");
const errorOf = (promise: Promise<unknown>) => promise.then(() => "resolved", (error: Error) => error.message);

test("a failed shared preparation: the same plugin gets its error, another plugin prepares again and gets its own; nothing is kept", async () => {
  const held = cachedArtifactCount();
  const compiled = compileCount();
  const [first, again, other] = await Promise.all([
    errorOf(prepare("shared-a", illTyped)),
    errorOf(prepare("shared-a", illTyped)),
    errorOf(prepare("shared-b", illTyped)),
  ]);
  expect(first).toContain("plugin shared-a does not compile");
  expect(again).toBe(first);
  expect(other).toContain("plugin shared-b does not compile");
  // one compilation for shared-a's two loads, one of its own for shared-b
  expect(compileCount()).toBe(compiled + 2);
  expect(cachedArtifactCount()).toBe(held);
});

test("a shared preparation that succeeds: one compilation for every plugin, kept until the last use lets go", async () => {
  const held = cachedArtifactCount();
  const compiled = compileCount();
  const bytes = tinyModule(`shared-${crypto.randomUUID()}`);
  const [a, b] = await Promise.all([prepare("ok-a", bytes), prepare("ok-b", bytes)]);
  expect(a.prepared).toBe(b.prepared);
  expect(compileCount()).toBe(compiled + 1);
  expect(cachedArtifactCount()).toBe(held + 1);
  a.done();
  expect(cachedArtifactCount()).toBe(held + 1);
  b.done();
  b.done();
  expect(cachedArtifactCount()).toBe(held);
});
