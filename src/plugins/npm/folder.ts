import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { PrxError } from "../../core/errors.ts";
import type { RemoteTransport } from "../remote/manifest.ts";

/** What `prx plugins add` records in the folder's package.json, so update and remove know the folder is theirs. */
export const NpmPluginMarkSchema = z.object({ package: z.string().min(1), transport: z.enum(["worker", "process"]) });
export type NpmPluginMark = z.infer<typeof NpmPluginMarkSchema>;

const FolderPackageSchema = z.looseObject({ prx: NpmPluginMarkSchema });

/** The folder's package.json: one dependency, the plugin package, at `range`. */
export function writeFolderPackage(dir: string, name: string, mark: NpmPluginMark, range: string): void {
  const manifest = {
    name: `prx-plugin-${name}`,
    private: true,
    type: "module",
    dependencies: { [mark.package]: range },
    prx: mark,
  };
  writeFileSync(join(dir, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
}

/** The mark of a folder `prx plugins add` made; refuses any other folder, naming what it is. */
export function readFolderMark(dir: string, name: string): NpmPluginMark {
  const path = join(dir, "package.json");
  if (!existsSync(path)) {
    throw new PrxError("NOT_FOUND", `plugins/${name} was not added from npm (no package.json)`, {
      hint: "prx plugins update and remove manage plugins added with prx plugins add",
    });
  }
  const parsed = FolderPackageSchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
  if (!parsed.success) {
    throw new PrxError("CONFLICT", `plugins/${name} was not added by prx plugins add (its package.json has no "prx" mark)`, {
      hint: "change that folder by hand",
    });
  }
  return parsed.data.prx;
}

/** The entry every npm plugin gets: the package's default export, bootstrapped by the runtime built into prx. */
export function workerEntry(pkg: string): string {
  return `// written by prx plugins add: the package's plugin, run by prx's worker runtime\n` +
    `import * as mod from ${JSON.stringify(pkg)};\n` +
    `import { bootstrap } from "@elizaos/plugin-worker-runtime";\n` +
    `bootstrap(mod.default ?? Object.values(mod).find((v) => v && typeof v === "object" && typeof v.name === "string"));\n`;
}

/** plugin.toml of a remote plugin whose entry is worker.js. */
export function remoteManifest(name: string, version: string, description: string, transport: RemoteTransport): string {
  return `# written by prx plugins add (prx plugins update rewrites the version)\n[plugin]\nname = ${JSON.stringify(name)}\n` +
    `version = ${JSON.stringify(version)}\nruntime = "remote"\ndescription = ${JSON.stringify(description.slice(0, 200))}\n\n` +
    `[remote]\nentry = "worker.js"\ntransport = "${transport}"\nready_timeout_ms = 30000\n`;
}

/** The installed package's version and description, from its own package.json. */
export function installedPackage(dir: string, pkg: string): { version: string; description: string } {
  const path = join(dir, "node_modules", ...pkg.split("/"), "package.json");
  const json = JSON.parse(readFileSync(path, "utf8")) as { version?: unknown; description?: unknown };
  return { version: String(json.version ?? "0.0.0"), description: typeof json.description === "string" ? json.description : "" };
}
