import { readFileSync } from "node:fs";
import { join } from "node:path";
import { dependencies, version } from "../../package.json" with { type: "json" };

/** Defined by build.ts in the compiled binary, which holds no source files: schemaFingerprint() computed at build. */
declare const PRX_CONFIG_SCHEMA_FINGERPRINT: string | undefined;

/**
 * The source files whose code decides what a config.toml validates to: the loader and every module of the config
 * schema, by path from src/ (test/config/cache.test.ts checks that this covers their imports).
 */
export const SCHEMA_SOURCES = [
  "core/tool-names.ts",
  "config/env.ts",
  "config/env-overrides.ts",
  "config/kinds.ts",
  "config/loader.ts",
  "config/cross-check.ts",
  "config/provider-presets.ts",
  "config/locate.ts",
  "config/mcp.ts",
  "config/schema.ts",
  "config/secrets-file.ts",
  "config/skills.ts",
  "config/skill-name.ts",
  "config/source.ts",
  "config/agent-tools-schema.ts",
  "core/session-id.ts",
] as const;

const SRC_DIR = join(import.meta.dir, "..");

let fromSources: string | undefined;

/**
 * What a validated config depends on besides its file and the override variables: the code that validates it (the
 * files above) and the versions of prx, zod and smol-toml. From source it hashes the files; the binary carries the
 * same hash of the files it was built from.
 */
export function schemaFingerprint(): string {
  if (typeof PRX_CONFIG_SCHEMA_FINGERPRINT === "string") return PRX_CONFIG_SCHEMA_FINGERPRINT;
  return (fromSources ??= fingerprintOf((path) => readFileSync(join(SRC_DIR, path), "utf8")));
}

function fingerprintOf(read: (path: string) => string): string {
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(`${version}\0${dependencies.zod}\0${dependencies["smol-toml"]}\0`);
  for (const path of SCHEMA_SOURCES) hasher.update(`${path}\0${read(path)}\0`);
  return hasher.digest("hex").slice(0, 16);
}
