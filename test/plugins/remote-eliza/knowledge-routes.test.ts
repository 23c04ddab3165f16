/**
 * The REAL `@elizaos/plugin-knowledge` from npm: its routes, written against Express (res.writeHead / res.end, a file
 * stream piped into res, a `*` path), answer through the gateway's plugin routes: the public UI page and its assets.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { openHost } from "./helpers.ts";
import { CORE_VERSION, installFromNpm, npmPluginWorkspace, type StarterInstall } from "./npm-starter.ts";

setDefaultTimeout(120_000);

const PLUGIN_VERSION = "1.6.1";
const install: StarterInstall = installFromNpm([`@elizaos/plugin-knowledge@${PLUGIN_VERSION}`, `@elizaos/core@${CORE_VERSION}`]);
if ("skip" in install) console.warn(`SKIPPED the @elizaos/plugin-knowledge tests: ${install.skip}`);

const cleanups: Array<() => void> = [];
afterAll(() => {
  for (const cleanup of cleanups) cleanup();
});

function workspace(nodeModules: string, transport: "worker" | "process"): string {
  return npmPluginWorkspace(nodeModules, { name: "knowledge", pkg: "@elizaos/plugin-knowledge", version: PLUGIN_VERSION, transport }, cleanups);
}

describe(`@elizaos/plugin-knowledge ${PLUGIN_VERSION} from npm: Express-style routes`, () => {
  for (const transport of ["worker", "process"] as const) {
    test.skipIf("skip" in install)(`${transport}: /display (writeHead, end) and /assets/* (a file stream piped into res)`, async () => {
      if ("skip" in install) throw new Error(install.skip);
      const { host, services } = await openHost(workspace(install.nodeModules, transport));
      try {
        await host.loadExtensions();
        const remote = services.remotes()!.remote("knowledge");
        expect(remote).toBeDefined();
        const display = await remote!.route("GET", "/display", new Request("http://h/plugins/knowledge/display"));
        expect(display.status).toBe(200);
        expect(display.headers.get("content-type")).toBe("text/html");
        const html = await display.text();
        expect(html).toContain("window.ELIZA_CONFIG");
        expect(remote!.publicRoute("GET", "/display")).toBe(true);
        const assets = join(install.nodeModules, "@elizaos", "plugin-knowledge", "dist", "assets");
        const css = readdirSync(assets).find((name) => name.endsWith(".css"))!;
        const asset = await remote!.route("GET", `/assets/${css}`, new Request(`http://h/plugins/knowledge/assets/${css}`));
        expect(asset.status).toBe(200);
        expect(asset.headers.get("content-type")).toBe("text/css");
        expect(await asset.text()).toBe(readFileSync(join(assets, css), "utf8"));
      } finally {
        await host.close();
      }
    });
  }
});
