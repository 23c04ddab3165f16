import { existsSync, readFileSync } from "node:fs";
import { PrxError } from "../core/errors.ts";

/** The text of config.toml at `path`, or null when there is none (the defaults apply). */
export function readConfigSource(path: string): string | null {
  if (!existsSync(path)) return null;
  try {
    return readFileSync(path, "utf8");
  } catch (cause) {
    throw new PrxError("CONFIG_NOT_FOUND", `cannot read ${path}: ${(cause as Error).message}`, { cause });
  }
}
