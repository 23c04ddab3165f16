import { z } from "zod";
import { isPrxError, PrxError } from "../core/errors.ts";
import { parseJsonBounded } from "../core/json/index.ts";
import {
  MEMORY_DEFAULT_CATEGORY,
  MEMORY_MAX_CATEGORY_BYTES,
  MEMORY_MAX_CONTENT_BYTES,
  MEMORY_MAX_KEY_BYTES,
  MEMORY_MAX_SESSION_ID_BYTES,
} from "./limits.ts";
import type { MemoryRecord } from "./types.ts";
import { keyObeysRule, MEMORY_KEY_RULE, utf8Bytes } from "./validate.ts";

/**
 * The memory export format: JSON Lines, one entry per line (`prx memory export`, GET /api/memory/export), read
 * back by import. Lines stream, append and diff well, and an error names its line.
 */

/** Largest import accepted (UTF-8 bytes of the whole file or request body). */
export const MEMORY_IMPORT_MAX_BYTES = 16 * 1024 * 1024;
/** Most entries one import may hold. */
export const MEMORY_IMPORT_MAX_ENTRIES = 10_000;
/** Bad lines named in the error of a refused import; the count of the rest follows. */
export const MEMORY_IMPORT_REPORTED_ERRORS = 10;

const bytes = (max: number, what: string) =>
  [(value: string) => utf8Bytes(value) <= max, `${what} is over ${max} bytes`] as const;

/** One line of an export; on import only key and content are required. */
export const MemoryRecordSchema = z
  .strictObject({
    key: z.string().min(1).refine(...bytes(MEMORY_MAX_KEY_BYTES, "key")).refine(keyObeysRule, MEMORY_KEY_RULE),
    content: z.string().refine(...bytes(MEMORY_MAX_CONTENT_BYTES, "content")),
    category: z.string().min(1).refine(...bytes(MEMORY_MAX_CATEGORY_BYTES, "category")).default(MEMORY_DEFAULT_CATEGORY),
    private: z.boolean().default(false).describe("never auto-recalled"),
    session_id: z
      .string()
      .min(1)
      .refine(...bytes(MEMORY_MAX_SESSION_ID_BYTES, "session_id"))
      .nullable()
      .default(null)
      .describe("recalled only in this session; null for every session"),
    created_at: z.iso.datetime().optional().describe("ISO-8601; the import time when absent"),
    updated_at: z.iso.datetime().optional().describe("ISO-8601; the import time when absent"),
  })
  .describe("one memory entry: a line of the JSON Lines export");

export function recordLine(record: MemoryRecord): string {
  return JSON.stringify(record);
}

interface LineError {
  line: number;
  message: string;
}

function tooLarge(what: string, size: number | string, max: number, unit: string): PrxError {
  return new PrxError("LIMIT_EXCEEDED", `memory import of ${size} ${what} is over the limit of ${max} ${unit}`, {
    status: 413,
    hint: "split the file into several imports",
  });
}

/** The error for an import over MEMORY_IMPORT_MAX_BYTES, e.g. seen while it is still being read. */
export function importTooLarge(size: number | string): PrxError {
  return tooLarge("bytes", size, MEMORY_IMPORT_MAX_BYTES, "bytes");
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** An import's bytes as text: refused past MEMORY_IMPORT_MAX_BYTES or when it is not UTF-8. */
export function decodeImport(bytes: Uint8Array): string {
  if (bytes.byteLength > MEMORY_IMPORT_MAX_BYTES) throw importTooLarge(bytes.byteLength);
  try {
    return UTF8.decode(bytes);
  } catch (cause) {
    throw new PrxError("BAD_REQUEST", "memory import is not valid UTF-8; nothing was imported", {
      cause,
      status: 400,
      hint: "export files are UTF-8 JSON Lines; re-save the file as UTF-8",
    });
  }
}

function refused(errors: LineError[]): PrxError {
  const shown = errors.slice(0, MEMORY_IMPORT_REPORTED_ERRORS).map((e) => `line ${e.line}: ${e.message}`);
  const more = errors.length - shown.length;
  return new PrxError(
    "BAD_REQUEST",
    `memory import refused, nothing was imported: ${shown.join("; ")}${more > 0 ? `; and ${more} more bad lines` : ""}`,
    {
      status: 400,
      hint: "fix the named lines (one JSON object per line, as `prx memory export` writes them) and import again",
      details: { errors },
    },
  );
}

/**
 * Parse and validate a whole import before anything is stored: every line must be a valid entry and no key may
 * repeat. Blank lines are skipped. Throws one PrxError naming the bad lines, or the size limit passed.
 */
export function parseMemoryImport(text: string, now: string = new Date().toISOString()): MemoryRecord[] {
  const size = utf8Bytes(text);
  if (size > MEMORY_IMPORT_MAX_BYTES) throw importTooLarge(size);
  const lines = text.split("\n");
  const records: MemoryRecord[] = [];
  const errors: LineError[] = [];
  const seen = new Map<string, number>();
  const schema = MemoryRecordSchema;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === "") continue;
    if (records.length + errors.length >= MEMORY_IMPORT_MAX_ENTRIES) {
      const entries = lines.slice(i).filter((l) => l.trim() !== "").length + records.length + errors.length;
      throw tooLarge("entries", entries, MEMORY_IMPORT_MAX_ENTRIES, "entries");
    }
    const line = i + 1;
    let value: unknown;
    try {
      value = parseJsonBounded(raw, "entry");
    } catch (cause) {
      errors.push({ line, message: isPrxError(cause) ? cause.message : `not JSON (${(cause as Error).message})` });
      continue;
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      errors.push({ line, message: `${issue.path.join(".") || "(entry)"}: ${issue.message}` });
      continue;
    }
    const entry = parsed.data;
    const first = seen.get(entry.key);
    if (first !== undefined) {
      errors.push({ line, message: `key ${JSON.stringify(entry.key)} repeats line ${first}` });
      continue;
    }
    seen.set(entry.key, line);
    const updated = entry.updated_at ?? now;
    records.push({ ...entry, created_at: entry.created_at ?? updated, updated_at: updated });
  }
  if (errors.length > 0) throw refused(errors);
  return records;
}
