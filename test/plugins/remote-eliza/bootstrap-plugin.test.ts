/**
 * The REAL `@elizaos/plugin-bootstrap` from npm (elizaOS's own message handling plugin) loads as a remote plugin: its
 * services start (runtime.getModel answers as elizaOS's does: a callable for the text models the host serves, none for
 * TEXT_EMBEDDING, so the embedding service stays off as it does in an elizaOS agent without one), and its actions are
 * offered as tools.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { listPlugins } from "../../../src/plugins/api.ts";
import { tempWorkspace } from "../../helpers/workspace.ts";
import { openHost } from "./helpers.ts";
import { CORE_VERSION, installFromNpm, type StarterInstall } from "./npm-starter.ts";

setDefaultTimeout(120_000);

const PLUGIN_VERSION = "1.7.2";
const install: StarterInstall = installFromNpm([`@elizaos/plugin-bootstrap@${PLUGIN_VERSION}`, `@elizaos/core@${CORE_VERSION}`]);
if ("skip" in install) console.warn(`SKIPPED the @elizaos/plugin-bootstrap tests: ${install.skip}`);

const cleanups: Array<() => void> = [];
afterAll(() => {
  for (const cleanup of cleanups) cleanup();
});

function workspace(nodeModules: string, transport: "worker" | "process"): string {
  const ws = tempWorkspace("", { prefix: "prx-eliza-plugins-bootstrap-" });
  cleanups.push(ws.cleanup);
  const dir = join(ws.dir, "plugins", "bootstrap");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "plugin.toml"),
    `[plugin]\nname = "bootstrap"\nversion = "${PLUGIN_VERSION}"\nruntime = "remote"\n\n[remote]\nentry = "worker.js"\ntransport = "${transport}"\nready_timeout_ms = 30000\nidle_stop_ms = 0\n`,
  );
  writeFileSync(join(dir, "worker.js"), `import plugin from "@elizaos/plugin-bootstrap";\nimport { bootstrap } from "@elizaos/plugin-worker-runtime";\nbootstrap(plugin);\n`);
  symlinkSync(nodeModules, join(dir, "node_modules"), "dir");
  return ws.dir;
}

describe(`@elizaos/plugin-bootstrap ${PLUGIN_VERSION} from npm`, () => {
  for (const transport of ["worker", "process"] as const) {
    test.skipIf("skip" in install)(`${transport}: active, its services started, its actions offered as tools`, async () => {
      if ("skip" in install) throw new Error(install.skip);
      const { host, services } = await openHost(workspace(install.nodeModules, transport));
      try {
        await host.loadExtensions();
        const plugin = listPlugins(services.runtime).plugins.find((p) => p.name === "bootstrap")!;
        expect(plugin.error_code).toBeNull();
        expect(plugin.status).toBe("active");
        expect(plugin.remote!.state).toBe("ready");
        expect(plugin.remote!.services_started.sort()).toEqual(["embedding-generation", "task"]);
        expect(host.tools.names()).toContain("REPLY");
      } finally {
        await host.close();
      }
    });
  }
});
