/**
 * smol-toml gives values, not positions. To name the line of a bad key we scan the source once and
 * record where each dotted path is defined: table headers, array-of-table headers and `key =` lines.
 */
export type PathLines = Map<string, number>;

const headerRe = /^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/;
const keyRe = /^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_\-.]+(?:\s*\.\s*(?:"[^"]*"|'[^']*'|[A-Za-z0-9_\-]+))*)\s*=/;

function splitKey(raw: string): string[] {
  const parts: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|([A-Za-z0-9_\-]+)/g;
  for (const m of raw.matchAll(re)) parts.push(m[1] ?? m[2] ?? m[3] ?? "");
  return parts;
}

export function locatePaths(source: string): PathLines {
  const lines = source.split(/\r?\n/);
  const found: PathLines = new Map();
  const arrayCounts = new Map<string, number>();
  let table: string[] = [];
  let inMultiline: string | null = null;
  lines.forEach((line, i) => {
    const lineNo = i + 1;
    if (inMultiline) {
      if (line.includes(inMultiline)) inMultiline = null;
      return;
    }
    const header = headerRe.exec(line);
    if (header) {
      const parts = splitKey(header[2] ?? "");
      if (header[1] === "[[") {
        const key = parts.join(".");
        const index = arrayCounts.get(key) ?? 0;
        arrayCounts.set(key, index + 1);
        table = [...parts, String(index)];
      } else {
        table = parts;
      }
      if (!found.has(table.join("."))) found.set(table.join("."), lineNo);
      return;
    }
    const key = keyRe.exec(line);
    if (key) {
      const path = [...table, ...splitKey(key[1] ?? "")].join(".");
      if (!found.has(path)) found.set(path, lineNo);
      const rest = line.slice(key[0].length);
      const triple = rest.match(/("""|''')/);
      if (triple && rest.split(triple[1]!).length === 2) inMultiline = triple[1]!;
    }
  });
  return found;
}

/** Best line for a path: the path itself, else its nearest defined ancestor. */
export function lineOf(lines: PathLines, path: (string | number)[]): number | undefined {
  for (let n = path.length; n > 0; n--) {
    const hit = lines.get(path.slice(0, n).join("."));
    if (hit !== undefined) return hit;
  }
  return undefined;
}
