import { PrxError } from "../core/errors.ts";
import { IDEMPOTENCY_KEY_MAX_BYTES, IDEMPOTENCY_PENDING_TIMEOUT_MS } from "./limits.ts";
import type { IdempotencyBegin } from "./types.ts";

/** Validates an X-Idempotency-Key header value. */
export function checkIdempotencyKey(key: string): void {
  const bytes = Buffer.byteLength(key, "utf8");
  if (bytes === 0 || bytes > IDEMPOTENCY_KEY_MAX_BYTES) {
    throw new PrxError("BAD_REQUEST", `X-Idempotency-Key must be 1-${IDEMPOTENCY_KEY_MAX_BYTES} bytes, got ${bytes}`);
  }
}

export interface IdempotencyRow {
  body_sha256: string;
  state: "pending" | "done";
  status: number | null;
  response: string | null;
  created_at: number | string;
}

/**
 * What a stored row means for a new request with `bodySha256`: null when the key may be (re)claimed (absent, or
 * pending longer than IDEMPOTENCY_PENDING_TIMEOUT_MS: its process died), a replay, or a CONFLICT thrown.
 */
export function decideExisting(row: IdempotencyRow | null, bodySha256: string, now: number): IdempotencyBegin | null {
  if (!row) return null;
  if (row.state === "pending" && now - Number(row.created_at) > IDEMPOTENCY_PENDING_TIMEOUT_MS) return null;
  if (row.body_sha256 !== bodySha256) {
    throw new PrxError("CONFLICT", "X-Idempotency-Key was already used with a different request body", {
      hint: "use a new key for a different request",
    });
  }
  if (row.state === "pending") {
    throw new PrxError("CONFLICT", "a request with this X-Idempotency-Key is still in progress", {
      hint: "retry after it finishes to get its stored reply",
    });
  }
  return { kind: "replay", status: row.status ?? 200, body: row.response ?? "" };
}
