/**
 * A channel process asks at every turn whether plugins are present: answered from a directory watch, it still sees
 * every change that matters at the next ask (hooks.json written, a plugin added, plugins/ created), and ignores what
 * does not (a dot-entry of plugins/, another file of the workspace).
 */
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PluginsPresence } from "../../src/boot/channel-host.ts";
import { plainWorkspacePaths } from "../../src/core/workspace-paths.ts";
import { tempWorkspace, type TempWorkspace } from "../helpers/workspace.ts";

let ws: TempWorkspace;
afterEach(() => ws.cleanup());

async function watched(root: string): Promise<PluginsPresence> {
  const presence = new PluginsPresence(plainWorkspacePaths(root));
  await presence.watching;
  return presence;
}

test("hooks.json written after the first look is seen at the next ask", async () => {
  ws = tempWorkspace("");
  mkdirSync(ws.pluginsDir);
  const presence = await watched(ws.dir);
  expect(presence.check()).toBe(false);
  expect(presence.check()).toBe(false);
  writeFileSync(join(ws.dir, "config.toml"), "# edited\n");
  expect(presence.check()).toBe(false);
  writeFileSync(join(ws.dir, "hooks.json"), "{}");
  expect(presence.check()).toBe(true);
});

test("a plugin added to plugins/ is seen at the next ask; a dot-entry is not a plugin", async () => {
  ws = tempWorkspace("");
  mkdirSync(ws.pluginsDir);
  const presence = await watched(ws.dir);
  expect(presence.check()).toBe(false);
  mkdirSync(join(ws.pluginsDir, ".staging"));
  expect(presence.check()).toBe(false);
  expect(presence.check()).toBe(false);
  mkdirSync(join(ws.pluginsDir, "gate"));
  expect(presence.check()).toBe(true);
});

test("plugins/ missing at the first look, then created with a plugin, then removed and made again", async () => {
  ws = tempWorkspace("");
  const presence = await watched(ws.dir);
  expect(presence.check()).toBe(false);
  mkdirSync(ws.pluginsDir);
  expect(presence.check()).toBe(false);
  rmSync(ws.pluginsDir, { recursive: true });
  expect(presence.check()).toBe(false);
  mkdirSync(join(ws.pluginsDir, "gate"), { recursive: true });
  expect(presence.check()).toBe(true);
});
