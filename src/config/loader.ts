import { loadSecretsFile } from "./secrets-file.ts";
import { parse as parseToml, TomlError } from "smol-toml";
import type { z } from "zod";
import { PrxError } from "../core/errors.ts";
import { ConfigSchema, type Config } from "./schema.ts";
import { lineOf, locatePaths } from "./locate.ts";
import { applyEnvOverrides } from "./env.ts";
import { crossCheck } from "./cross-check.ts";
import { readConfigSource } from "./source.ts";

export const CONFIG_MAX_BYTES = 1024 * 1024;

export interface LoadedConfig {
  config: Config;
  /** Absolute path of the file read, or null when the defaults were used. */
  path: string | null;
}

function describeIssue(issue: z.core.$ZodIssue, source: string, file: string): string {
  const lines = locatePaths(source);
  if (issue.code === "unrecognized_keys") {
    return issue.keys
      .map((key) => {
        const path = [...issue.path, key].map(String);
        const line = lineOf(lines, path);
        return `${file}${line ? `:${line}` : ""}: unknown key "${path.join(".")}"`;
      })
      .join("\n");
  }
  const path = issue.path.map(String);
  const line = lineOf(lines, path);
  const where = path.length ? `"${path.join(".")}"` : "(top level)";
  return `${file}${line ? `:${line}` : ""}: ${where}: ${issue.message}`;
}

/** Parse and validate TOML text. `file` only names the source in messages. */
export function parseConfig(source: string, file = "config.toml"): Config {
  if (source.length > CONFIG_MAX_BYTES) {
    throw new PrxError("CONFIG_INVALID", `${file}: larger than ${CONFIG_MAX_BYTES} bytes`);
  }
  let raw: unknown;
  try {
    raw = parseToml(source);
  } catch (cause) {
    const where = cause instanceof TomlError ? `:${cause.line}:${cause.column}` : "";
    const first = (cause as Error).message.split("\n")[0];
    throw new PrxError("CONFIG_PARSE", `${file}${where}: invalid TOML: ${first}`, {
      cause,
      hint: "fix the syntax at that line (prx config validate checks it)",
    });
  }
  const result = ConfigSchema.safeParse(raw);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => describeIssue(issue, source, file));
    throw new PrxError("CONFIG_INVALID", lines.join("\n"), {
      hint: "see `prx config schema` for every key and its type",
      details: { issues: result.error.issues },
    });
  }
  const crossed = crossCheck(result.data);
  if (crossed.length > 0) {
    const lines = locatePaths(source);
    const described = crossed.map((issue) => {
      const line = lineOf(lines, issue.path.map(String));
      return `${file}${line ? `:${line}` : ""}: "${issue.path.join(".")}": ${issue.message}`;
    });
    throw new PrxError("CONFIG_INVALID", described.join("\n"), {
      hint: "every turn would fail with these settings; fix them (prx config validate checks the file)",
      details: { issues: crossed },
    });
  }
  return result.data;
}

/** The configuration when there is no config.toml. */
export function defaultConfig(): Config {
  return ConfigSchema.parse({});
}

/**
 * Load config.toml from a path; a missing file means defaults. The workspace's secrets.env fills the variables `env`
 * lacks (secrets-file.ts), then env overrides are applied last.
 */
export function loadConfig(path: string, env: Record<string, string | undefined> = process.env): LoadedConfig {
  loadSecretsFile(path, env);
  const source = readConfigSource(path);
  if (source === null) return { config: applyEnvOverrides(defaultConfig(), env), path: null };
  return { config: applyEnvOverrides(parseConfig(source, path), env), path };
}
