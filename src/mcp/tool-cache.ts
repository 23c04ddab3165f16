import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { McpServerConfig } from "../config/mcp.ts";
import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { McpToolInfo } from "./tool-list.ts";

/**
 * The last tool list each server gave, kept in `<workspace>/cache/mcp/<server>.json`, so a host offers a server's
 * tools without starting it (servers start on first use). The file names the configuration it was read with
 * (command, args, cwd, url): another configuration ignores it.
 */
const CacheFileSchema = z.object({
  version: z.literal(1),
  fingerprint: z.string(),
  tools: z.array(
    z.object({ name: z.string().min(1), description: z.string(), inputSchema: z.record(z.string(), z.unknown()), readOnly: z.boolean().optional() }),
  ),
});

/** What decides which program or endpoint a server is; its environment, timeouts and filters do not. */
export function serverFingerprint(config: McpServerConfig): string {
  const identity = { command: config.command, args: config.args, cwd: config.cwd, url: config.url };
  return createHash("sha256").update(JSON.stringify(identity)).digest("hex");
}

function cachePath(cacheDir: string, server: string): string {
  return join(cacheDir, "mcp", `${server}.json`);
}

/** The cached tools, or null when there are none for this configuration (a damaged file is reported and ignored). */
export function readToolCache(cacheDir: string, server: string, fingerprint: string, logger: Logger): McpToolInfo[] | null {
  let text: string;
  try {
    text = readFileSync(cachePath(cacheDir, server), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    logger.warn(`cannot read the cached tool list of MCP server "${server}": ${errorMessage(error)}`);
    return null;
  }
  let parsed: z.ZodSafeParseResult<z.infer<typeof CacheFileSchema>>;
  try {
    parsed = CacheFileSchema.safeParse(JSON.parse(text));
  } catch (error) {
    logger.warn(`the cached tool list of MCP server "${server}" is not JSON; it is read again from the server`, {
      error: errorMessage(error),
    });
    return null;
  }
  if (!parsed.success) {
    logger.warn(`the cached tool list of MCP server "${server}" is damaged; it is read again from the server`);
    return null;
  }
  return parsed.data.fingerprint === fingerprint ? parsed.data.tools : null;
}

/** Replace the cached list (written beside and renamed, so a reader in another process never sees half a file). */
export function writeToolCache(
  cacheDir: string,
  server: string,
  fingerprint: string,
  tools: readonly McpToolInfo[],
  logger: Logger,
): void {
  const path = cachePath(cacheDir, server);
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    mkdirSync(join(cacheDir, "mcp"), { recursive: true });
    writeFileSync(temporary, JSON.stringify({ version: 1, fingerprint, tools }), { mode: 0o600 });
    renameSync(temporary, path);
  } catch (error) {
    logger.warn(`cannot cache the tool list of MCP server "${server}" (it is read from the server next time)`, {
      error: errorMessage(error),
    });
  }
}
