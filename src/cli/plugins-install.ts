import { terminalJson } from "../core/terminal.ts";
import { openWorkspace } from "../core/workspace.ts";
import { installPlugin } from "../plugins/kit/pack/install.ts";
import { parseCommand, usageError } from "./args.ts";
import { formatCheck } from "./plugins-format.ts";
import { PluginReloadResponseSchema } from "../plugins/api.ts";
import { errorMessage } from "../core/errors.ts";
import { runningGateway } from "./running-gateway.ts";

const USAGE = `Usage: prx plugins install <file.tar.gz|dir> [--force] [--json]
  Admits a pack (made by \`prx plugins pack\`; its files are checked against their SHA-256 and the content hash) or a
  plugin folder into the workspace's plugins/<name>/, after validate's admission checks. An installed plugin of the
  same name is replaced only with --force. The workspace's running gateway, if any, is asked to load it at once.
`;

export async function pluginsInstall(argv: string[], globals: { workspace?: string }): Promise<number> {
  const { values, positionals } = parseCommand("prx plugins install", argv, { force: { type: "boolean" }, json: { type: "boolean" } });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [source, extra] = positionals;
  if (!source) throw usageError("prx plugins install: missing <file|dir>");
  if (extra !== undefined) throw usageError(`prx plugins install: unexpected argument '${extra}'`);
  const workspace = openWorkspace(values.workspace ?? globals.workspace);
  const report = await installPlugin(source, workspace, { force: values.force === true });
  const loaded = await loadInRunningGateway(workspace, report.manifest.name);
  if (values.json) {
    process.stdout.write(terminalJson({ installed: report.dir, replaced: report.replaced, manifest: report.manifest, check: report.check, gateway: loaded }, 2) + "\n");
    return 0;
  }
  const { manifest } = report;
  process.stdout.write(
    `installed ${manifest.name} ${manifest.version} into ${report.dir}${report.replaced ? " (replaced the one installed)" : ""}\n` +
      `  content sha256 ${manifest.content_hash}\n` +
      (report.check ? formatCheck(report.dir, report.check) + "\n" : "") +
      `${loaded.said}\n`,
  );
  return 0;
}

/** Ask the workspace's running gateway to load the plugin; what happened, said for the user. */
async function loadInRunningGateway(workspace: { dataDir: string }, name: string): Promise<{ loaded: boolean; said: string }> {
  const gateway = runningGateway(workspace);
  if (!gateway) return { loaded: false, said: "no gateway of this workspace is running; the next one loads it" };
  const where = `the running gateway (pid ${gateway.presence.pid} at ${gateway.presence.url})`;
  try {
    const result = await gateway.request("POST", `/api/plugins/${encodeURIComponent(name)}/reload`, PluginReloadResponseSchema);
    return { loaded: true, said: `${where} loaded it: generation ${result.generation}` };
  } catch (error) {
    return { loaded: false, said: `${where} did not load it: ${errorMessage(error)}; fix it, then \`prx plugins reload ${name}\`` };
  }
}
