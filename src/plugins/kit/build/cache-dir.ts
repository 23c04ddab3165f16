import { chmodSync, lstatSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { PrxError } from "../../../core/errors.ts";

/**
 * Where the kit keeps what it derives once per machine (the QuickJS build engine, the WIT folder on disk, the test
 * sandbox's transpile cache): `$PRX_KIT_CACHE`, else `$XDG_CACHE_HOME/prx/kit`, else `~/.cache/prx/kit`. The
 * directory is the user's alone (0700): a native library is loaded from it.
 */
export function kitCacheDir(env: Record<string, string | undefined> = process.env): string {
  const dir = env.PRX_KIT_CACHE ?? join(env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "prx", "kit");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const info = lstatSync(dir);
  if (!info.isDirectory()) {
    throw new PrxError("PLUGIN_BUILD", `the kit cache ${dir} is not a directory`, { hint: "remove it, or set PRX_KIT_CACHE to another directory" });
  }
  if (typeof process.getuid === "function" && info.uid !== process.getuid()) {
    throw new PrxError("PLUGIN_BUILD", `the kit cache ${dir} belongs to another user`, {
      hint: "set PRX_KIT_CACHE to a directory of your own",
    });
  }
  if ((info.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  return dir;
}
