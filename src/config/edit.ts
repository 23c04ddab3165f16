import { parse as parseToml } from "smol-toml";
import { PrxError } from "../core/errors.ts";

/**
 * Edits of config.toml that keep everything else of the file as it was (comments, order, blank lines): one key's
 * value is replaced, added to its table, or removed, line by line. What cannot be edited that way (a key inside an
 * inline table or an array of tables) is refused naming the line, so the file is never rewritten from a parse.
 */

/** Longest key path `prx config set` takes (segments). */
export const CONFIG_KEY_MAX_SEGMENTS = 8;

const BARE = /^[A-Za-z0-9_-]+$/;

/** `a.b."c.d"` -> ["a", "b", "c.d"]; a bad path is a USAGE error naming it. */
export function splitKeyPath(path: string): string[] {
  const segments: string[] = [];
  let rest = path.trim();
  while (rest.length > 0) {
    let segment: string;
    if (rest.startsWith('"')) {
      const end = rest.indexOf('"', 1);
      if (end < 0) throw badPath(path, "a quoted segment is not closed");
      segment = rest.slice(1, end);
      rest = rest.slice(end + 1);
    } else {
      const end = rest.indexOf(".");
      segment = (end < 0 ? rest : rest.slice(0, end)).trim();
      rest = end < 0 ? "" : rest.slice(end);
      if (!BARE.test(segment)) throw badPath(path, `"${segment}" needs quotes (letters, digits, _ and - only when bare)`);
    }
    segments.push(segment);
    rest = rest.trimStart();
    if (rest.startsWith(".")) {
      rest = rest.slice(1).trimStart();
      if (rest.length === 0) throw badPath(path, "it ends with a dot");
    } else if (rest.length > 0) throw badPath(path, `unexpected "${rest}"`);
  }
  if (segments.length === 0) throw badPath(path, "it is empty");
  if (segments.length > CONFIG_KEY_MAX_SEGMENTS) throw badPath(path, `more than ${CONFIG_KEY_MAX_SEGMENTS} segments`);
  return segments;
}

function badPath(path: string, why: string): PrxError {
  return new PrxError("USAGE", `"${path}" is not a config key: ${why}`, { hint: 'write keys as in config.toml: gateway.port, providers.openai.base_url, providers.x.model_info."gpt-4o".vision' });
}

const keyText = (segment: string) => (BARE.test(segment) ? segment : JSON.stringify(segment));

/** A value given on the command line as TOML (8080, true, ["a"], "x"), or else as a string. */
export function tomlValue(given: string): string {
  try {
    parseToml(`v = ${given}`);
    return given;
  } catch {
    return JSON.stringify(given);
  }
}

interface Line {
  text: string;
  /** The table this line is in ([] at the top). */
  table: string[];
  header: "table" | "array" | null;
  /** The line sits in an array of tables ([[x]]): its keys are one element's, not the key path's. */
  inArray: boolean;
  /** For a `key = value` line: the key's segments, and where its value starts. */
  key?: string[];
  valueAt?: number;
}

const HEADER = /^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/;
const KEY_LINE = /^(\s*)((?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*'))*)\s*=\s*/;

function keySegments(text: string): string[] {
  const segments: string[] = [];
  const pattern = /\s*([A-Za-z0-9_-]+|"((?:[^"\\]|\\.)*)"|'([^']*)')\s*(?:\.|$)/gy;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(text)) !== null && match[0] !== "") {
    segments.push(match[2] !== undefined ? (JSON.parse(`"${match[2]}"`) as string) : (match[3] ?? match[1]!));
  }
  return segments;
}

/** The lines of a file, each with the table it sits in; a value spanning lines belongs to its key's first line. */
function scan(source: string): Line[] {
  const lines: Line[] = [];
  let table: string[] = [];
  let inArray = false;
  let open = "";
  for (const text of source.split("\n")) {
    if (open !== "") {
      // inside a multi-line value: part of the key line before it
      open += `\n${text}`;
      lines.push({ text, table, header: null, inArray });
      if (parses(open)) open = "";
      continue;
    }
    const header = HEADER.exec(text);
    if (header && !text.trimStart().startsWith("#")) {
      table = keySegments(header[2]!);
      inArray = header[1] === "[[";
      lines.push({ text, table, header: inArray ? "array" : "table", inArray });
      continue;
    }
    const key = KEY_LINE.exec(text);
    if (key) {
      lines.push({ text, table, header: null, inArray, key: keySegments(key[2]!), valueAt: key[0].length });
      if (!parses(text)) open = text;
      continue;
    }
    lines.push({ text, table, header: null, inArray });
  }
  return lines;
}

function parses(text: string): boolean {
  try {
    parseToml(text);
    return true;
  } catch {
    return false;
  }
}

const same = (a: string[], b: string[]) => a.length === b.length && a.every((s, i) => s === b[i]);
const startsWith = (whole: string[], prefix: string[]) => prefix.length <= whole.length && prefix.every((s, i) => s === whole[i]);

/** The key line of `path` (its table and its dotted key together), or -1. */
function findKey(lines: Line[], path: string[]): number {
  return lines.findIndex((line) => line.key !== undefined && !line.inArray && same([...line.table, ...line.key], path));
}

/** A line that holds `path` in a form this editor does not rewrite (inline table, array of tables), or null. */
function uneditable(lines: Line[], path: string[]): { line: number; why: string } | null {
  for (const [index, line] of lines.entries()) {
    if (line.header === "array" && startsWith(path, line.table)) return { line: index + 1, why: `[[${line.table.join(".")}]] is an array of tables` };
    if (line.key === undefined) continue;
    const full = [...line.table, ...line.key];
    if (full.length < path.length && startsWith(path, full)) return { line: index + 1, why: `${full.join(".")} is written as one value (an inline table)` };
  }
  return null;
}

/** The end (exclusive) of the key line at `at`: the lines its value spans. */
function valueEnd(lines: Line[], at: number): number {
  let end = at + 1;
  while (end < lines.length && lines[end]!.key === undefined && lines[end]!.header === null && !parses(lines.slice(at, end).map((l) => l.text).join("\n"))) end++;
  return end;
}

/** The comment after a one-line value (kept when the value is replaced), or "". */
function trailingComment(text: string, valueAt: number): string {
  for (let hash = text.indexOf("#", valueAt); hash >= 0; hash = text.indexOf("#", hash + 1)) {
    if (parses(`v = ${text.slice(valueAt, hash)}`)) return ` ${text.slice(hash)}`;
  }
  return "";
}

/** config.toml with `path` set to `value` (TOML text, see tomlValue). */
export function setConfigKey(source: string, path: string[], value: string): string {
  const lines = scan(source);
  const at = findKey(lines, path);
  if (at >= 0) {
    const line = lines[at]!;
    const end = valueEnd(lines, at);
    const comment = end === at + 1 ? trailingComment(line.text, line.valueAt!) : "";
    const replaced = `${line.text.slice(0, line.valueAt)}${value}${comment}`;
    return [...lines.slice(0, at).map((l) => l.text), replaced, ...lines.slice(end).map((l) => l.text)].join("\n");
  }
  const blocked = uneditable(lines, path);
  if (blocked) {
    throw new PrxError("CONFIG_INVALID", `cannot set ${path.join(".")} without rewriting line ${blocked.line}: ${blocked.why}`, {
      hint: "edit that line of config.toml by hand",
    });
  }
  const table = path.slice(0, -1);
  const key = `${keyText(path.at(-1)!)} = ${value}`;
  const texts = lines.map((l) => l.text);
  const headerAt = table.length === 0 ? -1 : lines.findIndex((l) => l.header === "table" && same(l.table, table));
  if (table.length === 0 || headerAt >= 0) {
    // after the table's last key (top-level keys go before the first table)
    const start = headerAt + 1;
    let next = lines.findIndex((l, i) => i >= start && l.header !== null);
    if (next < 0) next = lines.length;
    let insertAt = next;
    while (insertAt > start && texts[insertAt - 1]!.trim() === "") insertAt--;
    return [...texts.slice(0, insertAt), key, ...texts.slice(insertAt)].join("\n");
  }
  const body = source.replace(/\n*$/, "");
  return `${body}${body === "" ? "" : "\n\n"}[${table.map(keyText).join(".")}]\n${key}\n`;
}

/** config.toml without `path`; NOT_FOUND when the file does not set it. */
export function unsetConfigKey(source: string, path: string[]): string {
  const lines = scan(source);
  const at = findKey(lines, path);
  if (at < 0) {
    const blocked = uneditable(lines, path);
    if (blocked) throw new PrxError("CONFIG_INVALID", `cannot unset ${path.join(".")} without rewriting line ${blocked.line}: ${blocked.why}`, { hint: "edit that line of config.toml by hand" });
    throw new PrxError("NOT_FOUND", `config.toml does not set ${path.join(".")}`, { hint: "prx config get shows the value in effect (a default, when the file does not set it)" });
  }
  const end = valueEnd(lines, at);
  return [...lines.slice(0, at), ...lines.slice(end)].map((l) => l.text).join("\n");
}
