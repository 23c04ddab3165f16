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

/** The packages and built-in modules (`zod`, `node:fs`, `bun:sqlite`) a source file imports statically, for its values. */
export function packagesOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const found: string[] = [];
  for (const m of text.matchAll(STATIC)) if (m[2] === undefined && !m[3]!.startsWith(".")) found.push(m[3]!);
  for (const m of text.matchAll(BARE)) if (!m[1]!.startsWith(".")) found.push(m[1]!);
  return found;
}

/** Every source file evaluated with `entry`: its static imports of values, followed to the end (dynamic ones are not). */
export function staticClosure(entry: string): string[] {
  const seen = new Set<string>([entry]);
  for (const file of seen) {
    const text = readFileSync(join(ROOT, file), "utf8");
    const specs = [...[...text.matchAll(STATIC)].filter((m) => m[2] === undefined).map((m) => m[3]!), ...[...text.matchAll(BARE)].map((m) => m[1]!)];
    for (const spec of specs) if (spec.startsWith(".")) seen.add(normalize(join(dirname(file), spec)));
  }
  return [...seen].sort();
}
