import { PrxError } from "../../core/errors.ts";
import { validateSessionId } from "../../storage/index.ts";

/** A session id from a URL: the stores' rule (400 naming it when it is not one). */
export function sessionIdFrom(id: string): string {
  return validateSessionId(id);
}

export function sessionNotFound(id: string): PrxError {
  return new PrxError("SESSION_NOT_FOUND", `no session "${id}"`, { hint: "list sessions with GET /api/sessions" });
}
