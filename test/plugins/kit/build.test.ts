/**
 * `prx plugins build` from source (the engine from node_modules; the binary's embedded engine is tested through
 * dist/prx in cli.test.ts): components in the PRX contract's shape that prx loads, builds skipped when nothing
 * changed, and errors that point at the plugin's file and line.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { componentWit } from "@bytecodealliance/jco-transpile/wasm-tools";
import { isPrxError } from "../../../src/core/errors.ts";
import { openWorkspace } from "../../../src/core/workspace.ts";
import { buildPlugin } from "../../../src/plugins/kit/build/build.ts";
import { checkPluginDir } from "../../../src/plugins/kit/check.ts";
import { scaffoldPlugin, type PluginKind } from "../../../src/plugins/kit/scaffold.ts";
import { interfacesFromWit } from "../../../src/plugins/wasm/wit.ts";
import { tempDir } from "./helpers.ts";

setDefaultTimeout(60_000);

const root = tempDir("prx-kit-build-");
afterAll(() => root.remove());
let n = 0;

function scaffold(kind: PluginKind): string {
  return scaffoldPlugin(`p${n++}-${kind}`, kind, join(root.dir, `p${n}-${kind}`)).dir;
}

async function buildError(dir: string): Promise<string> {
  try {
    await buildPlugin(dir);
  } catch (error) {
    if (!isPrxError(error, "PLUGIN_BUILD")) throw error;
    return error.describe();
  }
  throw new Error("the build succeeded");
}

function setSource(dir: string, source: string): void {
  writeFileSync(join(dir, "src/plugin.ts"), source);
}

describe("a built component", () => {
  test("exports prx:plugin/<capability>-exports@0.1.0, imports prx:host only, and loads in prx", async () => {
    const dir = scaffold("middleware");
    const report = await buildPlugin(dir);
    expect(report).toMatchObject({ world: "middleware", upToDate: false });
    const wit = interfacesFromWit(await componentWit(readFileSync(report.wasmPath)));
    // (componentize-qjs components also export a function `init` of their own)
    expect(wit.exports.filter((e) => e.includes(":"))).toEqual(["prx:plugin/middleware-exports@0.1.0"]);
    expect(wit.imports.filter((i) => i.startsWith("prx:"))).toEqual(
      expect.arrayContaining(["prx:host/log@0.1.0", "prx:host/config@0.1.0"]),
    );
    const check = await checkPluginDir(dir, openWorkspace(join(root.dir, "ws")));
    expect(check.ok).toBe(true);
    expect(check.info.capabilities.map((c) => `${c.type}:${c.name}`)).toEqual([`middleware:${check.info.name}`]);
  });

  test("is not built again while nothing it is made from changes; a change rebuilds it", async () => {
    const dir = scaffold("cron");
    expect((await buildPlugin(dir)).upToDate).toBe(false);
    const before = readFileSync(join(dir, "plugin.wasm"));
    expect((await buildPlugin(dir)).upToDate).toBe(true);
    // a comment changes the sources, not the bundle: still up to date
    writeFileSync(join(dir, "src/plugin.ts"), readFileSync(join(dir, "src/plugin.ts"), "utf8") + "\n// a note\n");
    expect((await buildPlugin(dir)).upToDate).toBe(true);
    setSource(dir, readFileSync(join(dir, "src/plugin.ts"), "utf8").replace("run #", "round #"));
    expect((await buildPlugin(dir)).upToDate).toBe(false);
    expect(readFileSync(join(dir, "plugin.wasm")).equals(before)).toBe(false);
    expect((await buildPlugin(dir, { force: true })).upToDate).toBe(false);
    // the bundle names the folder's path in comments; a copy elsewhere is still up to date
    cpSync(dir, `${dir}-moved`, { recursive: true });
    expect((await buildPlugin(`${dir}-moved`)).upToDate).toBe(true);
  });

  test("a plugin with two capability types is one component exporting both", async () => {
    const dir = scaffold("hook");
    const manifest = readFileSync(join(dir, "plugin.toml"), "utf8");
    writeFileSync(join(dir, "plugin.toml"), `${manifest}\n[[capabilities]]\ntype = "cron"\nname = "tick"\nschedule = "* * * * *"\n`);
    setSource(
      dir,
      'import { defineCron, defineHook, kv } from "@prx/kit";\n' +
        'export const hookExports = defineHook({ onEvent() { kv.increment("n"); } });\n' +
        'export const cronExports = defineCron({ run: () => String(kv.get("n") ?? 0) });\n',
    );
    const report = await buildPlugin(dir);
    expect(report.world).toBe("kit-hook-cron");
    const wit = interfacesFromWit(await componentWit(readFileSync(report.wasmPath)));
    expect(wit.exports.filter((e) => e.includes(":")).sort()).toEqual(["prx:plugin/cron-exports@0.1.0", "prx:plugin/hook-exports@0.1.0"]);
  });
});

describe("build errors say where and what to do", () => {
  test("a syntax error: file:line:column and the line", async () => {
    const dir = scaffold("tool");
    setSource(dir, 'import { defineTool } from "@prx/kit";\n\nexport const toolExports = defineTool({ name: "x", \n  description: , parameters: {}, execute: () => "" });\n');
    const message = await buildError(dir);
    expect(message).toContain("src/plugin.ts:4:16: error: Unexpected ,");
    expect(message).toContain("hint: fix the error at the file:line above");
  });

  test("an error thrown by top-level code (evaluated at build time) points at the plugin's line", async () => {
    const dir = scaffold("tool");
    setSource(dir, 'import { config } from "@prx/kit";\nconst limit = 3;\nif (limit > 2) throw new Error("limit too high");\nexport const toolExports = {};\n');
    const message = await buildError(dir);
    expect(message).toContain("Error: limit too high");
    expect(message).toContain("src/plugin.ts:3:");
    expect(message).toContain("top-level code runs when the plugin is built");
  });

  test("a missing export names what the world needs", async () => {
    const dir = scaffold("storage");
    setSource(dir, 'export const storageExports = { name: () => "x" };\n');
    expect(await buildError(dir)).toContain(
      "src/plugin.ts does not export what a storage plugin needs: storageExports.storeMemory, storageExports.recallMemory",
    );
    setSource(dir, "export const somethingElse = 1;\n");
    expect(await buildError(dir)).toContain("export const storageExports = { name, storeMemory, recallMemory");
  });

  test("a host interface the world does not import (http in a middleware) is refused before the engine runs", async () => {
    const dir = scaffold("middleware");
    setSource(
      dir,
      'import { defineMiddleware } from "@prx/kit";\nimport { http } from "@prx/kit/http";\n' +
        "export const middlewareExports = defineMiddleware({ inbound(e) { http.get(e.text); } });\n",
    );
    const message = await buildError(dir);
    expect(message).toContain("imports prx:host/http-outbound@0.1.0, which the middleware world does not import");
    expect(message).toContain("http-outbound: tool, provider and storage");
  });

  test("@prx/kit/test belongs to the tests, not to the plugin", async () => {
    const dir = scaffold("tool");
    setSource(dir, 'import { loadPlugin } from "@prx/kit/test";\nexport const toolExports = { loadPlugin };\n');
    expect(await buildError(dir)).toContain("src/plugin.ts imports @prx/kit/test, which the kit does not have");
  });

  test("a remote plugin, a missing entry and a wasm path outside the folder", async () => {
    expect(await buildError(scaffold("remote"))).toContain("is a remote plugin: it runs from its sources");
    const dir = scaffold("tool");
    writeFileSync(join(dir, "src/plugin.ts"), "");
    writeFileSync(join(dir, "plugin.toml"), readFileSync(join(dir, "plugin.toml"), "utf8").replace('wasm = "plugin.wasm"', 'wasm = "../x.wasm"'));
    expect(await buildError(dir)).toContain('"plugin.wasm" = "../x.wasm" escapes the plugin directory');
  });
});
