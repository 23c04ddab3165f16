import { PrxError } from "../core/errors.ts";
import {
  MEMORY_MAX_CATEGORY_BYTES,
  MEMORY_MAX_CONTENT_BYTES,
  MEMORY_MAX_KEY_BYTES,
  MEMORY_MAX_RECALL_LIMIT,
  MEMORY_MAX_SESSION_ID_BYTES,
} from "./limits.ts";

const encoder = new TextEncoder();

export function utf8Bytes(text: string): number {
  return encoder.encode(text).byteLength;
}

function checkBytes(what: string, value: string, max: number): void {
  const size = utf8Bytes(value);
  if (size > max) {
    throw new PrxError("LIMIT_EXCEEDED", `memory ${what} is ${size} bytes, the limit is ${max} bytes`, {
      hint: `shorten the ${what} or split it into several entries`,
      status: 413,
    });
  }
}

/**
 * The rule every memory key obeys besides its length: no NUL. A NUL ends a C string, so a key holding one reads as
 * another key in a terminal, a log or a C library; no backend can keep such a key faithfully.
 */
export const MEMORY_KEY_RULE = "a memory key may not contain the NUL character (U+0000)";

/** Whether `key` obeys MEMORY_KEY_RULE (for schemas that check keys before they reach a backend). */
export function keyObeysRule(key: string): boolean {
  return !key.includes("\0");
}

function checkKey(key: string): void {
  checkBytes("key", key, MEMORY_MAX_KEY_BYTES);
  if (!keyObeysRule(key)) {
    throw new PrxError("MEMORY", `memory key ${JSON.stringify(key)} is refused: ${MEMORY_KEY_RULE}`, {
      hint: "remove the NUL character from the key",
      status: 400,
    });
  }
}

/** Validate the arguments of MemoryBackend.store; shared by every backend so limits are identical. */
export function validateStore(key: string, content: string, category: string, sessionId?: string | null): void {
  if (key.length === 0) {
    throw new PrxError("MEMORY", "memory key is empty", { hint: "give every memory a short non-empty key" });
  }
  checkKey(key);
  checkBytes("content", content, MEMORY_MAX_CONTENT_BYTES);
  checkBytes("category", category, MEMORY_MAX_CATEGORY_BYTES);
  if (sessionId) checkBytes("session id", sessionId, MEMORY_MAX_SESSION_ID_BYTES);
}

export function validateKey(key: string): void {
  checkKey(key);
}

export function validateLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new PrxError("MEMORY", `memory recall limit must be a positive integer, got ${limit}`, {
      hint: `use a limit between 1 and ${MEMORY_MAX_RECALL_LIMIT}`,
    });
  }
  if (limit > MEMORY_MAX_RECALL_LIMIT) {
    throw new PrxError("LIMIT_EXCEEDED", `memory recall limit ${limit} exceeds ${MEMORY_MAX_RECALL_LIMIT}`, {
      hint: `use a limit between 1 and ${MEMORY_MAX_RECALL_LIMIT}`,
    });
  }
}
