import { loadConfig } from "../config/loader.ts";
import { errorMessage } from "../core/errors.ts";
import { terminalJson, visible } from "../core/terminal.ts";
import { openWorkspace } from "../core/workspace.ts";
import { modelFacts } from "../providers/model-facts.ts";
import { createProviderResolver } from "../providers/resolver.ts";
import { parseCommand, usageError } from "./args.ts";

const USAGE = `Usage: prx models [--provider P] [--json]
  the models each configured provider serves (its model list, or the \`models\` it is configured with), with what
  prx knows of each: context window, longest answer, vision, and prices in USD per million tokens. A model prx does
  not know gets the defaults (marked *); [providers.<name>.model_info."<model>"] sets its facts.
`;

export interface ProviderModels {
  provider: string;
  models: Array<{
    id: string;
    default: boolean;
    context_window: number;
    max_output_tokens: number;
    vision: boolean;
    input_per_mtok: number | null;
    output_per_mtok: number | null;
    known: "config" | "built-in" | "default";
  }>;
  error?: string;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((row) => row[col]!.length)));
  return rows.map((row) => `  ${row.map((cell, col) => cell.padEnd(widths[col]!)).join("  ").trimEnd()}`).join("\n");
}

function format(all: ProviderModels[]): string {
  const out: string[] = [];
  let unknown = false;
  for (const entry of all) {
    out.push(entry.provider);
    if (entry.error) {
      out.push(`  cannot list its models: ${entry.error}`);
      continue;
    }
    if (entry.models.length === 0) {
      out.push("  no models listed");
      continue;
    }
    const price = (value: number | null) => (value === null ? "-" : String(value));
    const rows = entry.models.map((m) => {
      const mark = m.known === "default" ? "*" : "";
      unknown ||= m.known === "default";
      return [
        `${m.id}${m.default ? " (default)" : ""}`,
        `${m.context_window}${mark}`,
        `${m.max_output_tokens}${mark}`,
        m.vision ? "yes" : "no",
        price(m.input_per_mtok),
        price(m.output_per_mtok),
      ];
    });
    out.push(table([["MODEL", "CONTEXT", "MAX OUT", "VISION", "IN $/M", "OUT $/M"], ...rows]));
  }
  if (unknown) out.push('* not known to prx: defaults apply; set them in [providers.<name>.model_info."<model>"]');
  return out.join("\n");
}

export async function modelsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand("prx models", argv, { provider: { type: "string" }, json: { type: "boolean" } });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length > 0) throw usageError("prx models takes no arguments (see prx models --help)");
  const workspace = openWorkspace(values.workspace);
  const { config } = loadConfig(workspace.configPath);
  const resolver = createProviderResolver(config);
  const names = values.provider !== undefined ? [values.provider] : resolver.names().filter((name) => name !== "offline" || config.default_provider === "offline");
  const all: ProviderModels[] = [];
  for (const name of names) {
    const provider = resolver.resolve(name);
    const entry: ProviderModels = { provider: name, models: [] };
    try {
      const ids = (await provider.listModels?.()) ?? [];
      entry.models = ids.map((id) => {
        const facts = modelFacts(config, name, id);
        return {
          id,
          default: name === config.default_provider && id === config.default_model,
          context_window: facts.context_window,
          max_output_tokens: facts.max_output_tokens,
          vision: facts.vision,
          input_per_mtok: facts.prices?.input_per_mtok ?? null,
          output_per_mtok: facts.prices?.output_per_mtok ?? null,
          known: facts.source,
        };
      });
    } catch (error) {
      entry.error = errorMessage(error);
    }
    all.push(entry);
  }
  const text = values.json === true ? terminalJson(all, 2) : visible(format(all), { multiline: true });
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  return all.some((entry) => entry.error) ? 1 : 0;
}
