/**
 * The REAL `@elizaos/plugin-bootstrap` from npm (elizaOS's own message handling plugin) loads as a remote plugin: its
 * services start (runtime.getModel answers as elizaOS's does: a callable for the text models the host serves, none for
 * TEXT_EMBEDDING, so the embedding service stays off as it does in an elizaOS agent without one), and its actions are
 * offered as tools.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { listPlugins } from "../../../src/plugins/api.ts";
import { openHost } from "./helpers.ts";
import { CORE_VERSION, installFromNpm, npmPluginWorkspace, type StarterInstall } from "./npm-starter.ts";

setDefaultTimeout(120_000);

const PLUGIN_VERSION = "1.7.2";
const install: StarterInstall = installFromNpm([`@elizaos/plugin-bootstrap@${PLUGIN_VERSION}`, `@elizaos/core@${CORE_VERSION}`]);
if ("skip" in install) console.warn(`SKIPPED the @elizaos/plugin-bootstrap tests: ${install.skip}`);

const cleanups: Array<() => void> = [];
afterAll(() => {
  for (const cleanup of cleanups) cleanup();
});

function workspace(nodeModules: string, transport: "worker" | "process"): string {
  const manifestExtra = "idle_stop_ms = 0\n";
  return npmPluginWorkspace(nodeModules, { name: "bootstrap", pkg: "@elizaos/plugin-bootstrap", version: PLUGIN_VERSION, transport, manifestExtra }, cleanups);
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
