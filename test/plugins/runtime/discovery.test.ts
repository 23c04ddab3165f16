import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { closeSync, mkdirSync, openSync, symlinkSync, truncateSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import {
  detectWasmKind,
  discoverPlugins,
  isOverLimit,
  MANIFEST_MAX_BYTES,
  PLUGINS_DIR_MAX_ENTRIES,
  PLUGINS_DIR_MAX_REFUSED_LISTED,
  WASM_MAX_BYTES,
} from "../../../src/plugins/discovery.ts";
import type { DiscoveredError, DiscoveredPlugin } from "../../../src/plugins/discovered.ts";
import { makeWorkspace, manifest, writePlugin, type TestWorkspace } from "./helpers.ts";

const CORE_HEADER = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
const COMPONENT_HEADER = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00]);

let t: TestWorkspace;
beforeEach(() => (t = makeWorkspace()));
afterEach(() => t.cleanup());

function only(found: DiscoveredPlugin[]): DiscoveredPlugin {
  expect(found).toHaveLength(1);
  return found[0]!;
}

function errorOf(found: DiscoveredPlugin): string {
  expect(found.ok).toBe(false);
  return (found as DiscoveredError).error.message;
}

/** A plugin.toml of exactly `size` bytes (padded with a comment). */
function manifestOfSize(size: number): string {
  const base = manifest({ name: "big" }) + "\n#";
  return base + "x".repeat(size - Buffer.byteLength(base) - 1) + "\n";
}

describe("discovery", () => {
  test("plugins are discovered in sorted order, deterministically", () => {
    for (const name of ["zeta", "alpha", "mid"]) writePlugin(t.workspace, name, manifest({ name }), CORE_HEADER);
    const names = discoverPlugins(t.workspace.pluginsDir).map((p) => p.name);
    expect(names).toEqual(["alpha", "mid", "zeta"]);
    expect(discoverPlugins(t.workspace.pluginsDir).map((p) => p.name)).toEqual(names);
  });

  test(`${PLUGINS_DIR_MAX_ENTRIES} directory entries are read; one more is refused unread, by name`, () => {
    for (let i = 0; i < PLUGINS_DIR_MAX_ENTRIES; i++) writeFileSync(join(t.workspace.pluginsDir, `f${i}`), "");
    expect(discoverPlugins(t.workspace.pluginsDir)).toEqual([]);
    writeFileSync(join(t.workspace.pluginsDir, "one-more"), "");
    const extra = only(discoverPlugins(t.workspace.pluginsDir));
    expect([extra.name, isOverLimit(extra)]).toEqual(["one-more", true]);
    expect(errorOf(extra)).toContain(`holds ${PLUGINS_DIR_MAX_ENTRIES + 1} entries, more than the limit of ${PLUGINS_DIR_MAX_ENTRIES}`);
  });

  test("past the entry limit the first plugins (sorted) are admitted and the rest refused", () => {
    const names = Array.from({ length: PLUGINS_DIR_MAX_ENTRIES + 1 }, (_, i) => `p${String(i).padStart(3, "0")}`);
    for (const name of names) writePlugin(t.workspace, name, manifest({ name }), CORE_HEADER);
    const found = discoverPlugins(t.workspace.pluginsDir);
    expect(found.map((p) => p.name)).toEqual(names);
    expect(found.slice(0, PLUGINS_DIR_MAX_ENTRIES).every((p) => p.ok)).toBe(true);
    expect(isOverLimit(found.at(-1)!)).toBe(true);
  });

  test(`${PLUGINS_DIR_MAX_REFUSED_LISTED} refused entries are listed; past that the last one counts the rest`, () => {
    for (let i = 0; i < PLUGINS_DIR_MAX_ENTRIES; i++) writeFileSync(join(t.workspace.pluginsDir, `a${i}`), "");
    for (let i = 0; i < PLUGINS_DIR_MAX_REFUSED_LISTED; i++) writeFileSync(join(t.workspace.pluginsDir, `z${i}`), "");
    const listed = discoverPlugins(t.workspace.pluginsDir);
    expect(listed).toHaveLength(PLUGINS_DIR_MAX_REFUSED_LISTED);
    expect(listed.some((p) => errorOf(p).includes("more)"))).toBe(false);
    writeFileSync(join(t.workspace.pluginsDir, "zz"), "");
    const capped = discoverPlugins(t.workspace.pluginsDir);
    expect(capped).toHaveLength(PLUGINS_DIR_MAX_REFUSED_LISTED);
    expect(errorOf(capped.at(-1)!)).toContain("(and 1 more)");
  });

  test("a symlinked plugin directory is refused", () => {
    writePlugin(t.workspace, "real", manifest({ name: "real" }), CORE_HEADER);
    const outside = join(t.workspace.root, "elsewhere");
    mkdirSync(outside);
    writeFileSync(join(outside, "plugin.toml"), manifest({ name: "linked" }));
    symlinkSync(outside, join(t.workspace.pluginsDir, "linked"));
    const found = discoverPlugins(t.workspace.pluginsDir);
    expect(found.map((p) => [p.name, p.ok])).toEqual([
      ["linked", false],
      ["real", true],
    ]);
    expect(errorOf(found[0]!)).toContain("the plugin directory is a symlink; symlinks are refused");
  });

  test(`plugin.toml of ${MANIFEST_MAX_BYTES} bytes passes, one byte more is refused`, () => {
    writePlugin(t.workspace, "big", manifestOfSize(MANIFEST_MAX_BYTES), CORE_HEADER);
    expect(only(discoverPlugins(t.workspace.pluginsDir)).ok).toBe(true);
    writePlugin(t.workspace, "big", manifestOfSize(MANIFEST_MAX_BYTES + 1));
    expect(errorOf(only(discoverPlugins(t.workspace.pluginsDir)))).toContain(`larger than the limit of ${MANIFEST_MAX_BYTES} bytes`);
  });

  test("plugin.toml that is not valid UTF-8 is refused", () => {
    const dir = writePlugin(t.workspace, "latin", "", CORE_HEADER);
    writeFileSync(join(dir, "plugin.toml"), Buffer.concat([Buffer.from(manifest({ name: "latin" })), Buffer.from([0x23, 0xe9, 0x0a])]));
    expect(errorOf(only(discoverPlugins(t.workspace.pluginsDir)))).toContain("not valid UTF-8");
  });

  test("a symlinked plugin.toml is refused", () => {
    const real = join(t.workspace.root, "elsewhere.toml");
    writeFileSync(real, manifest({ name: "linked" }));
    const dir = join(t.workspace.pluginsDir, "linked");
    mkdirSync(dir);
    writeFileSync(join(dir, "plugin.wasm"), CORE_HEADER);
    symlinkSync(real, join(dir, "plugin.toml"));
    expect(errorOf(only(discoverPlugins(t.workspace.pluginsDir)))).toContain("plugin.toml is a symlink");
  });

  test("a symlinked wasm file is refused", () => {
    const real = join(t.workspace.root, "real.wasm");
    writeFileSync(real, CORE_HEADER);
    const dir = writePlugin(t.workspace, "linkwasm", manifest({ name: "linkwasm" }));
    symlinkSync(real, join(dir, "plugin.wasm"));
    expect(errorOf(only(discoverPlugins(t.workspace.pluginsDir)))).toContain("wasm file is a symlink");
  });

  test("a wasm path escaping the plugin directory is refused (.., absolute, symlinked parent)", () => {
    writeFileSync(join(t.workspace.root, "outside.wasm"), CORE_HEADER);
    writePlugin(t.workspace, "dots", manifest({ name: "dots", wasm: "../../outside.wasm" }));
    writePlugin(t.workspace, "abs", manifest({ name: "abs", wasm: join(t.workspace.root, "outside.wasm") }));
    const linked = writePlugin(t.workspace, "subdir", manifest({ name: "subdir", wasm: "lib/outside.wasm" }));
    symlinkSync(t.workspace.root, join(linked, "lib"));
    const found = discoverPlugins(t.workspace.pluginsDir);
    expect(found.map((p) => p.name)).toEqual(["abs", "dots", "subdir"]);
    expect(errorOf(found[0]!)).toContain("escapes the plugin directory");
    expect(errorOf(found[1]!)).toContain("escapes the plugin directory");
    expect(errorOf(found[2]!)).toContain("resolves outside the plugin directory");
  });

  test(`a wasm file of ${WASM_MAX_BYTES} bytes passes (sparse), one byte more is refused`, () => {
    const dir = writePlugin(t.workspace, "huge", manifest({ name: "huge" }));
    const path = join(dir, "plugin.wasm");
    const fd = openSync(path, "w");
    writeSync(fd, CORE_HEADER);
    closeSync(fd);
    truncateSync(path, WASM_MAX_BYTES);
    const ok = only(discoverPlugins(t.workspace.pluginsDir));
    expect(ok.ok && ok.kind).toBe("wasm-module");
    truncateSync(path, WASM_MAX_BYTES + 1);
    expect(errorOf(only(discoverPlugins(t.workspace.pluginsDir)))).toContain(`larger than the limit of ${WASM_MAX_BYTES} bytes`);
  });

  test("kind comes from the wasm header: component, core module, or an error", () => {
    expect(detectWasmKind(COMPONENT_HEADER, "c.wasm")).toBe("wasm-component");
    expect(detectWasmKind(CORE_HEADER, "m.wasm")).toBe("wasm-module");
    expect(() => detectWasmKind(new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 1, 0, 0, 0]), "elf")).toThrow("bad magic");
    expect(() => detectWasmKind(new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x02, 0x00, 0x00, 0x00]), "v2")).toThrow("unsupported");
    writePlugin(t.workspace, "comp", manifest({ name: "comp" }), COMPONENT_HEADER);
    const found = only(discoverPlugins(t.workspace.pluginsDir));
    expect(found.ok && found.kind).toBe("wasm-component");
  });

  test("remote plugins: entry checked like a wasm file, kind remote", () => {
    const remote = (entry: string) => `[plugin]\nname = "rem"\nversion = "1"\nruntime = "remote"\n[remote]\nentry = "${entry}"\n`;
    const dir = writePlugin(t.workspace, "rem", remote("worker.ts"));
    writeFileSync(join(dir, "worker.ts"), "export default {}\n");
    const found = only(discoverPlugins(t.workspace.pluginsDir));
    expect(found.ok && found.kind).toBe("remote");
    expect(found.ok && found.entryPath).toBe(join(dir, "worker.ts"));
    writePlugin(t.workspace, "rem", remote("../worker.ts"));
    expect(errorOf(only(discoverPlugins(t.workspace.pluginsDir)))).toContain("remote.entry");
  });

  test("one broken plugin never blocks the others; the failed one keeps its directory name", () => {
    writePlugin(t.workspace, "a-good", manifest({ name: "a-good" }), CORE_HEADER);
    writePlugin(t.workspace, "b-broken", "[plugin\nname=");
    writePlugin(t.workspace, "c-nowasm", manifest({ name: "c-nowasm" }));
    mkdirSync(join(t.workspace.pluginsDir, "d-empty"));
    writePlugin(t.workspace, "e-good", manifest({ name: "e-good" }), CORE_HEADER);
    const found = discoverPlugins(t.workspace.pluginsDir);
    expect(found.map((p) => [p.name, p.ok])).toEqual([
      ["a-good", true],
      ["b-broken", false],
      ["c-nowasm", false],
      ["d-empty", false],
      ["e-good", true],
    ]);
    expect(errorOf(found[1]!)).toContain("invalid TOML");
    expect(errorOf(found[2]!)).toContain("not found");
    expect(errorOf(found[3]!)).toContain("plugin.toml not found");
  });
});
