import { relative } from "node:path";
import { PLUGIN_KINDS, scaffoldPlugin, type PluginKind } from "../plugins/kit/scaffold.ts";
import { parseCommand, unknownName, usageError } from "./args.ts";

const USAGE = `Usage: prx plugins new <name> --kind tool|middleware|hook|cron|provider|storage|remote [--dir D]
  Scaffolds a plugin folder (D, default ./<name>): plugin.toml (with comments), src/plugin.ts implementing the
  capability with @prx/kit, plugin.test.ts, README.md, tsconfig.json and .prx-kit/ (types for your editor).
  --kind remote scaffolds an elizaOS-style plugin (plugin.ts + worker.ts) that prx runs in a Worker.
`;

export async function pluginsNew(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand("prx plugins new", argv, { kind: { type: "string" }, dir: { type: "string" } });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [name, extra] = positionals;
  if (!name) throw usageError("prx plugins new: missing <name> (e.g. prx plugins new weather --kind tool)");
  if (extra !== undefined) throw usageError(`prx plugins new: unexpected argument '${extra}'`);
  if (!values.kind) throw usageError(`prx plugins new: --kind is required: ${PLUGIN_KINDS.join(", ")}`);
  if (!(PLUGIN_KINDS as readonly string[]).includes(values.kind)) throw unknownName("kind", values.kind, PLUGIN_KINDS, "prx plugins new");
  const kind = values.kind as PluginKind;
  const { dir, files } = scaffoldPlugin(name, kind, values.dir);
  const shown = relative(process.cwd(), dir) || ".";
  const steps = kind === "remote" ? ["prx plugins test", "prx plugins dev"] : ["prx plugins build", "prx plugins test", "prx plugins dev"];
  process.stdout.write(
    `created ${shown}/ (a ${kind} plugin): ${files.join(", ")}\n` +
      `next:\n  cd ${shown}\n${steps.map((s) => `  ${s}`).join("\n")}    # with \`prx gateway\` running in the workspace\n`,
  );
  return 0;
}
