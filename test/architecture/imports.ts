import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

export const ROOT = join(import.meta.dir, "../..");
const SRC = join(ROOT, "src");

/** Every .ts file under src/, relative to the repository root. */
export function sourceFiles(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: "utf8" })
    .filter((p) => p.endsWith(".ts") && !p.endsWith(".d.ts"))
    .map((p) => join("src", p))
    .sort();
}

export interface Import {
  from: string;
  to: string;
  typeOnly: boolean;
}

const STATIC = /^\s*(import|export)\s+(type\s+)?[^"';]*?\sfrom\s+"([^"]+)"/gm;
const DYNAMIC = /import\(\s*"([^"]+)"\s*\)/g;
const BARE = /^\s*import\s+"([^"]+)"/gm;

/** Relative imports of a source file (static, re-exports and dynamic), resolved to repository paths. */
export function importsOf(file: string): Import[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const found: Import[] = [];
  const add = (spec: string, typeOnly: boolean) => {
    if (!spec.startsWith(".")) return;
    found.push({ from: file, to: normalize(join(dirname(file), spec)), typeOnly });
  };
  for (const m of text.matchAll(STATIC)) add(m[3]!, m[2] !== undefined);
  for (const m of text.matchAll(DYNAMIC)) add(m[1]!, false);
  for (const m of text.matchAll(BARE)) add(m[1]!, false);
  return found;
}

/** `src/plugins/remote/x.ts` -> `plugins`; files directly under src/ are their own subsystem. */
export function subsystemOf(path: string): string {
  const parts = relative("src", path).split("/");
  return parts.length > 1 ? parts[0]! : parts[0]!.replace(/\.ts$/, "");
}
