import { readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { errorMessage, PrxError } from "../core/errors.ts";

/** `secrets.env` beside config.toml: keys stored by `prx init` (never in config.toml), loaded at start. */
export const SECRETS_FILE = "secrets.env";
/** Largest secrets.env read. */
export const SECRETS_FILE_MAX_BYTES = 64 * 1024;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `NAME=value` lines (`export ` allowed, `#` comments, a value in single or double quotes kept as it is inside). */
export function parseSecrets(text: string, file: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const [index, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const body = line.startsWith("export ") ? line.slice(7).trimStart() : line;
    const equals = body.indexOf("=");
    const name = equals < 0 ? body : body.slice(0, equals).trim();
    if (equals < 0 || !NAME.test(name)) {
      throw new PrxError("CONFIG_INVALID", `${file}:${index + 1}: expected NAME=value (a variable name of letters, digits and _)`, {
        hint: "one variable per line; values may be quoted",
      });
    }
    let value = body.slice(equals + 1).trim();
    if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.at(-1) === value[0]) value = value.slice(1, -1);
    values.set(name, value);
  }
  return values;
}

/**
 * The workspace's secrets.env (beside the config at `configPath`) into `env`, for the variables `env` does not set
 * already (what the environment says wins). A file others may read is refused: it holds keys.
 */
export function loadSecretsFile(configPath: string, env: Record<string, string | undefined>): string[] {
  const file = join(dirname(configPath), SECRETS_FILE);
  let size: number;
  let mode: number;
  try {
    ({ size, mode } = statSync(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new PrxError("CONFIG_INVALID", `cannot read ${file}: ${errorMessage(error)}`);
  }
  if ((mode & 0o077) !== 0) {
    throw new PrxError("CONFIG_INVALID", `${file} can be read by other users (mode ${(mode & 0o777).toString(8)}): it holds keys`, {
      hint: `chmod 600 ${file}`,
    });
  }
  if (size > SECRETS_FILE_MAX_BYTES) throw new PrxError("CONFIG_INVALID", `${file}: larger than ${SECRETS_FILE_MAX_BYTES} bytes`);
  const loaded: string[] = [];
  for (const [name, value] of parseSecrets(readFileSync(file, "utf8"), file)) {
    if (env[name] !== undefined && env[name] !== "") continue;
    env[name] = value;
    loaded.push(name);
  }
  return loaded;
}
