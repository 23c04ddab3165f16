import { relative, resolve } from "node:path";
import { loadConfig } from "../config/loader.ts";
import { openWorkspace } from "../core/workspace.ts";
import { readKitManifest } from "../plugins/kit/build/build.ts";
import { DevLoop, type CycleResult } from "../plugins/kit/dev/loop.ts";
import { watchSources } from "../plugins/kit/dev/watch.ts";
import { gatewayAccess } from "./running-gateway.ts";
import { parseCommand, usageError } from "./args.ts";
import { formatBytes, formatMs } from "./format.ts";

const USAGE = `Usage: prx plugins dev [dir] [--url URL] [--force]
  Watches the plugin folder; at the start and after every change it builds the plugin (kit plugins), installs it
  into the workspace's plugins/<name>/ and reloads it in the workspace's running gateway, through its API with a
  token of its own (created in the workspace like \`prx gateway token create\`, revoked when dev stops). Build errors
  are printed with file:line and install nothing: the gateway keeps serving the last good build. A turn in flight
  finishes on the generation it started on. Ctrl-C stops.
  --url     the gateway's address (default http://<[gateway] host>:<port> of the workspace's config.toml)
  --force   replace a plugin of the same name in the workspace that is not this folder's dev copy
`;

function describe(dir: string, paths: string[], result: CycleResult): string {
  const what = paths.length === 0 ? "start" : `${paths.slice(0, 3).join(", ")}${paths.length > 3 ? ", ..." : ""} changed`;
  if (result.kind === "failed") {
    const where = result.stage === "build" ? "build failed" : "install failed";
    return `[dev] ${what}: ${where}; the gateway keeps serving the last good build\n${result.error.replace(/^/gm, "  ")}`;
  }
  const built = result.build
    ? result.build.upToDate
      ? "unchanged build"
      : `built in ${formatMs(result.build.ms)} (${formatBytes(result.build.bytes)})`
    : "sources copied";
  const reload = result.reload;
  const outcome =
    reload.kind === "reloaded"
      ? `reloaded: generation ${reload.generation} (${reload.outcome.replaceAll("_", " ")}), ${formatMs(result.totalMs)} after the change` +
        ` (install ${formatMs(result.installMs)}, reload ${formatMs(reload.ms)})`
      : reload.kind === "refused"
        ? `reload refused (${reload.status} ${reload.code}): ${reload.message}; the previous generation keeps serving`
        : `no gateway answers (${reload.message}); installed, a gateway started on this workspace loads it`;
  return `[dev] ${what}: ${built}; ${outcome}`;
}

export async function pluginsDev(argv: string[], globals: { workspace?: string }): Promise<number> {
  const { values, positionals } = parseCommand("prx plugins dev", argv, { url: { type: "string" }, force: { type: "boolean" } });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length > 1) throw usageError(`prx plugins dev: unexpected argument '${positionals[1]}'`);
  const dir = resolve(positionals[0] ?? ".");
  const manifest = readKitManifest(dir);
  const workspace = openWorkspace(values.workspace ?? globals.workspace);
  const { config } = loadConfig(workspace.configPath);
  const { url, token, release } = await gatewayAccess(workspace, config, `prx plugins dev ${manifest.plugin.name}`, values.url);
  const print = (paths: string[], result: CycleResult) => process.stdout.write(describe(dir, paths, result) + "\n");
  const loop = new DevLoop(dir, workspace, { url, token }, print, values.force === true);
  // a stop during the first cycle still revokes the token
  const { promise: stopped, resolve: stop } = Promise.withResolvers<void>();
  process.once("SIGINT", () => stop());
  process.once("SIGTERM", () => stop());
  process.stdout.write(`[dev] ${manifest.plugin.name}: watching ${relative(process.cwd(), dir) || "."}; gateway ${url}; Ctrl-C stops\n`);
  const watcher = watchSources(dir, [manifest.plugin.wasm], (paths) => void loop.trigger(paths));
  void loop.trigger([]);
  await stopped;
  watcher.close();
  await loop.idle();
  const revoked = await release();
  process.stdout.write(revoked ? `[dev] stopped; token ${revoked} revoked\n` : "[dev] stopped\n");
  return 0;
}
