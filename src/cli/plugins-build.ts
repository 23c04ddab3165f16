import { relative } from "node:path";
import { buildPlugin } from "../plugins/kit/build/build.ts";
import { parseCommand, usageError } from "./args.ts";
import { formatBytes, formatMs } from "./format.ts";

const USAGE = `Usage: prx plugins build [dir] [--force] [--json]
  Bundles the folder's src/plugin.ts (with @prx/kit) and builds it into a WebAssembly component against the PRX
  WIT with prx's embedded QuickJS engine: plugin.wasm (or plugin.toml's wasm). Offline; nothing to install.
  Skipped when nothing it is made from changed (--force builds anyway).
`;

export async function pluginsBuild(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand("prx plugins build", argv, { force: { type: "boolean" }, json: { type: "boolean" } });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length > 1) throw usageError(`prx plugins build: unexpected argument '${positionals[1]}'`);
  const report = await buildPlugin(positionals[0] ?? ".", { force: values.force === true });
  if (values.json) {
    process.stdout.write(JSON.stringify(report, null, 2) + "\n");
    return 0;
  }
  const wasm = relative(process.cwd(), report.wasmPath);
  process.stdout.write(
    report.upToDate
      ? `${report.name}: ${wasm} is up to date (${formatBytes(report.bytes)}, ${report.world} world)\n`
      : `built ${report.name}: ${wasm}, ${formatBytes(report.bytes)} (${report.world} world) in ${formatMs(report.ms)}\n`,
  );
  return 0;
}
