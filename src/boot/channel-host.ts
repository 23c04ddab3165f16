import { existsSync } from "node:fs";
import type { OpenAgentHostOptions } from "../agent/host.ts";
import type { Config } from "../config/schema.ts";
import { errorMessage } from "../core/errors.ts";
import type { Workspace } from "../core/workspace.ts";
import { PluginDirWatch } from "../plugins/dir-watch.ts";
import { pluginsPresent } from "./plugins-present.ts";

type Extend = NonNullable<OpenAgentHostOptions["extend"]>;

/**
 * The extensions of a channel process's agent host: the same as the gateway's and `prx agent`'s (plugins, hooks,
 * and the tools of `[mcp.servers.*]`), so a chat offers the tools the terminal does. Channels cannot import the MCP
 * client (a peer of theirs): `prx channel run` hands this in. Its modules load when the host opens, after the
 * platform is connected.
 */
export function channelHostExtensions(): Extend {
  return async (base) => {
    const [{ createPluginExtensions }, { mcpClientExtension }] = await Promise.all([import("../agent/plugin-extensions.ts"), import("../mcp/extension.ts")]);
    return mcpClientExtension().wrap(createPluginExtensions())(base);
  };
}

/**
 * Whether a channel process's turn needs those extensions yet: a plugin or hooks.json in the workspace, an MCP server
 * configured, or events shared between replicas. Until then the plugin runtime and the MCP client stay unloaded
 * (~4 MB of the process's RSS); asked at every turn, so a plugin installed while the process runs is loaded by the
 * next one (and a reload the gateway forwards loads it at once).
 */
export function channelExtensionsNeeded(): (host: { workspace: Workspace; config: Config }) => boolean {
  let presence: PluginsPresence | undefined;
  return ({ workspace, config }) =>
    config.bus.backend !== "local" || Object.keys(config.mcp.servers).length > 0 || (presence ??= new PluginsPresence(workspace)).check();
}

/**
 * pluginsPresent asked at every turn, answered from its last look while the kernel reports no change in the
 * workspace directory (hooks.json, plugins/ created) or in plugins/ (dir-watch.ts): a turn then reads no directory.
 * Until the watch is open, and where there is none, every ask looks. Once something is present the extensions load
 * and nobody asks again: the watch closes.
 */
export class PluginsPresence {
  private watch: PluginDirWatch | null = null;
  /** Settles once the watch is open (or known to be unavailable). */
  readonly watching: Promise<void>;
  private last: boolean | null = null;
  /** plugins/ did not exist at the last look (its creation is an event of the workspace directory). */
  private pluginsAbsent = false;

  constructor(private readonly workspace: Workspace) {
    this.watching = PluginDirWatch.open().then(
      (watch) => void (this.watch = watch),
      (error: unknown) => void process.stderr.write(`prx: plugins/ is read at every turn: no directory watch (${errorMessage(error)})\n`),
    );
  }

  check(): boolean {
    const { root, pluginsDir } = this.workspace;
    const watch = this.watch;
    if (!watch) return pluginsPresent(this.workspace);
    watch.drain();
    if (this.last !== null && watch.quiet(root) && (this.pluginsAbsent || watch.quiet(pluginsDir))) return this.last;
    // watched before the look: a change during it is an event for the next ask
    const rootWatched = watch.watch(root);
    const pluginsWatched = watch.watch(pluginsDir);
    const present = pluginsPresent(this.workspace);
    if (rootWatched) watch.checked(root);
    if (pluginsWatched) watch.checked(pluginsDir);
    this.pluginsAbsent = !pluginsWatched && !existsSync(pluginsDir);
    this.last = present;
    if (present) {
      watch.close();
      this.watch = null;
    }
    return present;
  }
}
