/**
 * The test sandbox of @prx/kit/test, from source: the client (guest/test.ts, as a plugin's tests import it) starts
 * `prx __plugin-sandbox` (here: bun src/cli/main.ts), which loads the plugin with the runtime's own loader into a
 * throw-away workspace. The binary's `prx plugins test` is tested in cli.test.ts.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadPlugin, type TestPlugin } from "../../../src/plugins/kit/guest/test.ts";
import { pushBounded, SANDBOX_MAX_EVENTS, SANDBOX_MAX_LOG_LINES } from "../../../src/plugins/kit/sandbox/session.ts";
import { scaffoldPlugin } from "../../../src/plugins/kit/scaffold.ts";
import { tempDir } from "./helpers.ts";

setDefaultTimeout(60_000);

const root = tempDir("prx-kit-sandbox-");
process.env.PRX_BIN = process.execPath;
process.env.PRX_ENTRY = resolve(import.meta.dir, "../../../src/cli/main.ts");

let tool: TestPlugin;
let toolDir: string;

beforeAll(async () => {
  toolDir = scaffoldPlugin("sandboxed", "tool", join(root.dir, "sandboxed")).dir;
  writeFileSync(
    join(toolDir, "src/plugin.ts"),
    'import { defineTool, events, kv, log } from "@prx/kit";\n' +
      'export const toolExports = defineTool<{ n: number }>({ name: "sandboxed", description: "d", parameters: { type: "object" },\n' +
      '  execute({ n }) { kv.set("n", String(n)); log.info(`got ${n}`); events.publish("sandboxed.got", { n }); return `n=${n}`; } });\n',
  );
  const manifest = join(toolDir, "plugin.toml");
  writeFileSync(manifest, readFileSync(manifest, "utf8").replace("optional = []", 'optional = ["events"]'));
  tool = await loadPlugin({ dir: toolDir });
});
afterAll(async () => {
  await tool.close();
  root.remove();
});

describe("a loaded plugin", () => {
  test("is built first, and described: capabilities and the tool specs the model sees", () => {
    expect(tool.name).toBe("sandboxed");
    expect(tool.capabilities).toEqual([{ type: "tool", name: "sandboxed" }]);
    expect(tool.tools).toEqual([{ name: "sandboxed", description: "d", parameters: { type: "object" } }]);
  });

  test("its host imports are backed by the sandbox's workspace: kv, log lines and published events", async () => {
    expect(await tool.tool().call({ n: 7 })).toEqual({ ok: true, output: "n=7", error: null, messages: [] });
    expect(await tool.kv.get("n")).toBe("7");
    await tool.kv.set("seeded", "yes");
    expect(await tool.kv.keys()).toEqual(["n", "seeded"]);
    expect((await tool.logs()).some((line) => line.endsWith("got 7"))).toBe(true);
    expect(await tool.events()).toEqual([{ topic: "sandboxed.got", payload: { n: 7 } }]);
  });

  test("asking for a capability it lacks names the ones it has", async () => {
    await expect(tool.tool("nope").call()).rejects.toThrow('PLUGIN_NOT_FOUND: plugin sandboxed has no tool "nope"');
    await expect(tool.runCron()).rejects.toThrow("plugin sandboxed has no cron job");
  });

  test("an optional permission left out of `grant` is refused at the call, as prx refuses it", async () => {
    const ungranted = await loadPlugin({ dir: toolDir, grant: [] });
    try {
      const result = await ungranted.tool().call({ n: 1 });
      expect(result.ok).toBe(false);
      expect(result.error).toContain("events");
    } finally {
      await ungranted.close();
    }
  });
});

test("a plugin that does not load rejects loadPlugin with its load error", async () => {
  const needy = scaffoldPlugin("needy", "hook", join(root.dir, "needy")).dir;
  const needyManifest = join(needy, "plugin.toml");
  writeFileSync(needyManifest, readFileSync(needyManifest, "utf8").replace("required = []", 'required = ["events"]'));
  await expect(loadPlugin({ dir: needy, grant: [] })).rejects.toThrow('PLUGIN_PERMISSION: plugin "needy" requires ungranted permission(s): "events"');
  const dir = scaffoldPlugin("broken", "cron", join(root.dir, "broken")).dir;
  const manifest = join(dir, "plugin.toml");
  writeFileSync(manifest, readFileSync(manifest, "utf8").replace('schedule = "0 9 * * *"', 'schedule = "every day"'));
  await expect(loadPlugin({ dir })).rejects.toThrow("a cron capability needs a 5- or 6-field schedule");
});

test(`events and log lines are kept up to ${SANDBOX_MAX_EVENTS} and ${SANDBOX_MAX_LOG_LINES}, the oldest dropped past them`, () => {
  for (const max of [SANDBOX_MAX_EVENTS, SANDBOX_MAX_LOG_LINES]) {
    const list: number[] = [];
    for (let i = 0; i < max; i++) pushBounded(list, i, max);
    expect(list).toHaveLength(max);
    expect(list[0]).toBe(0);
    pushBounded(list, max, max);
    expect(list).toHaveLength(max);
    expect([list[0], list.at(-1)]).toEqual([1, max]);
  }
});
