import { relative } from "node:path";
import { packPlugin } from "../plugins/kit/pack/pack.ts";
import { parseCommand, usageError } from "./args.ts";
import { formatBytes } from "./format.ts";

const USAGE = `Usage: prx plugins pack [dir] [--out FILE|DIR] [--json]
  Writes the plugin as one .tar.gz (default <name>-<version>-<hash>.tar.gz here, or in DIR): prx-pack.json (every file's size
  and SHA-256, and the content hash over them), then plugin.toml, the component and README/LICENSE (a remote plugin:
  all its files but dot-files and symlinks). A kit plugin is built first. \`prx plugins install <file>\` admits it.
`;

export async function pluginsPack(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand("prx plugins pack", argv, { out: { type: "string" }, json: { type: "boolean" } });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length > 1) throw usageError(`prx plugins pack: unexpected argument '${positionals[1]}'`);
  const report = await packPlugin(positionals[0] ?? ".", values.out);
  if (values.json) {
    process.stdout.write(JSON.stringify({ path: report.path, bytes: report.bytes, skipped: report.skipped, manifest: report.manifest }, null, 2) + "\n");
    return 0;
  }
  const { manifest } = report;
  process.stdout.write(
    `packed ${manifest.name} ${manifest.version}: ${relative(process.cwd(), report.path) || report.path}, ` +
      `${manifest.files.length} files, ${formatBytes(report.bytes)}\n  content sha256 ${manifest.content_hash}\n` +
      (report.skipped.length ? `  left out: ${report.skipped.slice(0, 10).join(", ")}${report.skipped.length > 10 ? ", ..." : ""}\n` : ""),
  );
  return 0;
}
