import { readdirSync } from "node:fs";

const BUNFS_ROOT = "/$bunfs/root";

/**
 * Where the sandbox Worker entry lives. From source: next to this file. In a `bun build --compile` binary every
 * Worker is an extra entrypoint stored under /$bunfs/root at a path that depends on the build's root, so look it up.
 */
export function sandboxWorkerUrl(): string | URL {
  const here = new URL("./worker.ts", import.meta.url);
  if (!import.meta.url.startsWith(`file://${BUNFS_ROOT}/`)) return here;
  let entries: string[];
  try {
    entries = readdirSync(BUNFS_ROOT, { recursive: true }) as string[];
  } catch {
    return here;
  }
  const match = entries
    .filter((p) => /(^|\/)sandbox\/worker\.(js|ts)$/.test(p))
    .sort((a, b) => Number(b.includes("plugins/wasm/sandbox/")) - Number(a.includes("plugins/wasm/sandbox/")))[0];
  return match ? `${BUNFS_ROOT}/${match}` : here;
}
