/**
 * Settings are JSON values, as a character's settings and secrets are in elizaOS: `[plugins.<name>.settings]` in
 * config.toml (any TOML value) over the manifest's `[remote.settings]`, and `[plugins.<name>.secrets]` read from the
 * environment variables they name, reach runtime.getSetting as values (tables as objects) and process.env as text.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isPrxError } from "../../../src/core/errors.ts";
import { tempWorkspace } from "../../helpers/workspace.ts";
import { openHost, quietLogs } from "./helpers.ts";

quietLogs();

setDefaultTimeout(30_000);

const SECRET_ENV = "PRX_ELIZA_PLUGINS_TEST_SECRET";
const cleanups: Array<() => void> = [];
afterAll(() => {
  delete process.env[SECRET_ENV];
  for (const cleanup of cleanups) cleanup();
});

const WORKER = `const plugin = {
  name: "settings-probe",
  init: async (config) => { globalThis.initConfig = config; },
  actions: [{
    name: "SHOW_SETTINGS",
    handler: async (runtime) => JSON.stringify({
      mcp: runtime.getSetting("mcp"),
      limit: runtime.getSetting("LIMIT"),
      tags: runtime.getSetting("TAGS"),
      manifest: runtime.getSetting("FROM_MANIFEST"),
      token: runtime.getSetting("API_TOKEN"),
      init: globalThis.initConfig,
      env: { LIMIT: process.env.LIMIT ?? null, TAGS: process.env.TAGS ?? null },
    }),
  }],
};
export default plugin;
`;

function workspace(transport: "worker" | "process", config: string): string {
  const ws = tempWorkspace(config, { prefix: "prx-eliza-plugins-settings-" });
  cleanups.push(ws.cleanup);
  const dir = join(ws.dir, "plugins", "settings-probe");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "plugin.toml"),
    `[plugin]\nname = "settings-probe"\nversion = "1.0.0"\nruntime = "remote"\n\n[remote]\nentry = "worker.js"\ntransport = "${transport}"\n\n` +
      `[remote.settings]\nFROM_MANIFEST = { nested = [1, 2] }\nLIMIT = 1\n`,
  );
  writeFileSync(join(dir, "worker.js"), WORKER);
  return ws.dir;
}

const CONFIG = `[plugins.settings-probe.settings]
LIMIT = 5
TAGS = ["a", "b"]
[plugins.settings-probe.settings.mcp.servers.everything]
type = "stdio"
args = ["x", "stdio"]
[plugins.settings-probe.secrets]
API_TOKEN = "${SECRET_ENV}"
`;

describe("structured settings and secrets", () => {
  for (const transport of ["worker", "process"] as const) {
    test(`${transport}: tables, arrays and numbers reach getSetting as values; a secret comes from its variable`, async () => {
      process.env[SECRET_ENV] = "s3cret";
      const { host } = await openHost(workspace(transport, CONFIG));
      try {
        await host.loadExtensions();
        const context = { sessionId: "s", workspace: "/nonexistent", signal: new AbortController().signal };
        const result = await host.tools.call("SHOW_SETTINGS", "{}", context);
        expect(result.error ?? null).toBeNull();
        const seen = JSON.parse(result.output) as Record<string, unknown>;
        expect(seen.mcp).toEqual({ servers: { everything: { type: "stdio", args: ["x", "stdio"] } } });
        expect(seen.limit).toBe(5);
        expect(seen.tags).toEqual(["a", "b"]);
        expect(seen.manifest).toEqual({ nested: [1, 2] });
        expect(seen.token).toBe("s3cret");
        // init(config) gets a record of strings, as in elizaOS: structured values as their JSON text
        expect((seen.init as Record<string, string>).mcp).toBe(JSON.stringify(seen.mcp));
        expect((seen.init as Record<string, string>).LIMIT).toBe("5");
        if (transport === "process") expect(seen.env).toEqual({ LIMIT: "5", TAGS: '["a","b"]' });
      } finally {
        await host.close();
      }
    });
  }

  test("a secret whose variable is unset keeps the plugin out, naming the variable and the fix", async () => {
    delete process.env[SECRET_ENV];
    const { host, services } = await openHost(workspace("worker", CONFIG));
    try {
      await host.loadExtensions();
      expect(host.tools.names()).not.toContain("SHOW_SETTINGS");
      const record = services.runtime.current().plugin("settings-probe")!;
      expect(record.state).toBe("error");
      expect(record.error).toMatchObject({
        message: `plugin "settings-probe": secret API_TOKEN reads the environment variable ${SECRET_ENV}, which is not set`,
      });
      expect(isPrxError(record.error, "PLUGIN_ADMISSION")).toBe(true);
    } finally {
      await host.close();
    }
  });
});
