import { terminalJson } from "../core/terminal.ts";
import { openWorkspace } from "../core/workspace.ts";
import { installPlugin } from "../plugins/kit/pack/install.ts";
import { parseCommand, usageError } from "./args.ts";
import { formatCheck } from "./plugins-format.ts";

const USAGE = `Usage: prx plugins install <file.tar.gz|dir> [--force] [--json]
  Admits a pack (made by \`prx plugins pack\`; its files are checked against their SHA-256 and the content hash) or a
  plugin folder into the workspace's plugins/<name>/, after validate's admission checks. An installed plugin of the
  same name is replaced only with --force. A running gateway picks it up on reload (prx plugins reload <name>, or
  POST /api/plugins/<name>/reload).
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
  if (values.json) {
    process.stdout.write(terminalJson({ installed: report.dir, replaced: report.replaced, manifest: report.manifest, check: report.check }, 2) + "\n");
    return 0;
  }
  const { manifest } = report;
  process.stdout.write(
    `installed ${manifest.name} ${manifest.version} into ${report.dir}${report.replaced ? " (replaced the one installed)" : ""}\n` +
      `  content sha256 ${manifest.content_hash}\n` +
      (report.check ? formatCheck(report.dir, report.check) + "\n" : "") +
      `a running gateway loads it on reload: prx plugins reload ${manifest.name} (or POST /api/plugins/${manifest.name}/reload)\n`,
  );
  return 0;
}
