import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { PrxError } from "../../core/errors.ts";
import { PLUGIN_NAME_PATTERN } from "../manifest.ts";
import { CapabilityTypes } from "../types.ts";
import { TEMPLATE_FILES } from "./embedded/files.ts";
import { writeKitFiles } from "./layout.ts";

/**
 * `prx plugins new <name> --kind <kind>`: a plugin folder from the templates embedded in prx
 * (src/plugins/kit/templates/): plugin.toml with comments, the capability in src/plugin.ts (or, for `remote`, an
 * elizaOS-style plugin and its worker entry), plugin.test.ts, README.md, tsconfig.json and `.prx-kit/`.
 */
export const PLUGIN_KINDS = [...CapabilityTypes, "remote"] as const;
export type PluginKind = (typeof PLUGIN_KINDS)[number];

const KIND_NOTES: Record<PluginKind, string> = {
  tool: "A tool the model can call: `src/plugin.ts` gives its name, description, the JSON Schema of its arguments and `execute`.",
  middleware:
    "A middleware: `src/plugin.ts` sees the envelope of each stage it declares (plugin.toml `stages`), returns it changed or not, or blocks the turn.",
  hook: "A hook: `src/plugin.ts` receives the bus events matching plugin.toml `events`.",
  cron: "A cron job: `src/plugin.ts` runs on plugin.toml `schedule`.",
  provider: 'An LLM provider: select it with `default_provider = "wasm:<name>"` in config.toml.',
  storage: 'A memory backend: select it with `[memory] backend = "wasm:<name>"` in config.toml.',
  remote: "An elizaOS-style plugin object (actions, providers, services, events, routes) that prx runs in a Worker.",
};

const KIT_PATHS = {
  "@prx/kit": "./.prx-kit/kit/index.ts",
  "@prx/kit/http": "./.prx-kit/kit/http.ts",
  "@prx/kit/memory": "./.prx-kit/kit/memory.ts",
  "@prx/kit/test": "./.prx-kit/kit/test.ts",
};

/** The tsconfig.json of a scaffolded folder (the examples in plugins/ carry the same). */
export function tsconfigFor(kind: PluginKind): string {
  const paths: Record<string, string> = { ...KIT_PATHS, ...(kind === "remote" ? { "prx/worker-runtime": "./.prx-kit/worker-runtime/index.ts" } : {}) };
  const include = kind === "remote" ? ["*.ts", ".prx-kit/kit", ".prx-kit/worker-runtime"] : ["src", "plugin.test.ts", ".prx-kit/kit"];
  return TEMPLATE_FILES["common/tsconfig.json"]!.replace(
    "__PATHS__",
    Object.entries(paths)
      .map(([name, path]) => `      ${JSON.stringify(name)}: [${JSON.stringify(path)}]`)
      .join(",\n"),
  ).replace("__INCLUDE__", include.map((p) => JSON.stringify(p)).join(", "));
}

function readme(kind: PluginKind, files: string[]): string {
  const what: Record<string, string> = {
    "plugin.toml": "the manifest (with comments)",
    "src/plugin.ts": "the plugin",
    "plugin.ts": "the plugin object",
    "worker.ts": "the entry prx starts",
    "plugin.test.ts": "its tests (`prx plugins test`)",
    "tsconfig.json": "for your editor",
  };
  return TEMPLATE_FILES["common/README.md"]!.replace("__KIND_NOTE__", KIND_NOTES[kind])
    .replace("__FILES__", files.filter((f) => f in what).map((f) => `| \`${f}\` | ${what[f]} |`).join("\n"))
    .replace(
      "__BUILD_NOTE__",
      kind === "remote" ? "nothing to do: a remote plugin runs from its sources" : "src/plugin.ts -> plugin.wasm (a WebAssembly component)",
    );
}

/** snake_case of a plugin name: the tool name a model calls. */
export function toolNameOf(name: string): string {
  return name.replace(/-/g, "_");
}

export interface ScaffoldResult {
  dir: string;
  files: string[];
}

export function scaffoldPlugin(name: string, kind: PluginKind, dirArg?: string): ScaffoldResult {
  if (!PLUGIN_NAME_PATTERN.test(name)) {
    throw new PrxError("USAGE", `prx plugins new: "${name}" is not a plugin name`, {
      hint: "1-64 characters: lowercase letters, digits, _ and -, starting with a letter or digit",
    });
  }
  const dir = resolve(dirArg ?? name);
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new PrxError("CONFLICT", `prx plugins new: ${dir} exists and is not empty`, {
      hint: "choose another folder with --dir, or another name",
    });
  }
  const prefix = kind === "remote" ? "remote/" : `wasm/${kind}/`;
  const files: Record<string, string> = {};
  for (const [path, text] of Object.entries(TEMPLATE_FILES)) if (path.startsWith(prefix)) files[path.slice(prefix.length)] = text;
  files["tsconfig.json"] = tsconfigFor(kind);
  files["README.md"] = readme(kind, Object.keys(files).sort());
  const substitute = (text: string) =>
    text
      .replaceAll("__PLUGIN_NAME__", name)
      .replaceAll("__TOOL_NAME__", toolNameOf(name))
      .replaceAll("__CAPABILITY__", name)
      .replaceAll("__KIND__", kind);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), substitute(text));
  }
  writeKitFiles(dir, { remote: kind === "remote" });
  return { dir, files: Object.keys(files).sort() };
}
