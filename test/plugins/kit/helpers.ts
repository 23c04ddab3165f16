import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eachLine } from "../../helpers/lines.ts";

/** The kit's cache for tests (the QuickJS engine, the WIT folder, transpiled components): shared, outside HOME. */
export const TEST_KIT_CACHE = join(tmpdir(), "prx-kit-test-cache");
mkdirSync(TEST_KIT_CACHE, { recursive: true });
process.env.PRX_KIT_CACHE = TEST_KIT_CACHE;

/** A temp directory removed by the returned function. */
export function tempDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A process's output read line by line, with a wait for the first line (from line `from` on) that matches. */
export function lineReader(stream: ReadableStream<Uint8Array>): { lines: string[]; next(pattern: RegExp, from?: number): Promise<string> } {
  const lines: string[] = [];
  const waiters: { pattern: RegExp; from: number; resolve: (line: string) => void }[] = [];
  void eachLine(stream, (line) => {
    lines.push(line);
    for (const w of waiters.splice(0)) {
      if (lines.length - 1 >= w.from && w.pattern.test(line)) w.resolve(line);
      else waiters.push(w);
    }
  });
  const next = (pattern: RegExp, from = 0): Promise<string> => {
    const seen = lines.slice(from).find((l) => pattern.test(l));
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve) => waiters.push({ pattern, from, resolve }));
  };
  return { lines, next };
}
