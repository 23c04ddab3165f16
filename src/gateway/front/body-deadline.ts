import { PrxError } from "../../core/errors.ts";
import { BODY_DEADLINE_MS } from "../limits.ts";
import type { RequestFacts } from "./types.ts";

export function bodyTooSlow(): PrxError {
  return new PrxError("LIMIT_EXCEEDED", `the request body did not arrive within ${BODY_DEADLINE_MS} ms of its headers`, {
    status: 408,
    hint: "send the whole body at once, or a smaller one; the connection is closed",
    details: { limit_ms: BODY_DEADLINE_MS },
  });
}

/**
 * `read` (the request's body) if it settles by the request's body deadline (at it still counts), else 408. A read the
 * deadline overtook settles unheard once the connection is closed under it.
 */
export function withinBodyDeadline<T>(read: Promise<T>, facts: Pick<RequestFacts, "bodyDeadlineAt" | "timer">): Promise<T> {
  const at = facts.bodyDeadlineAt;
  if (at === null) return read;
  const left = at - facts.timer.now();
  return new Promise<T>((resolve, reject) => {
    const late = () => reject(bodyTooSlow());
    const cancel = left < 0 ? (late(), () => {}) : facts.timer.after(left + 1, late);
    read.then(
      (value) => {
        cancel();
        resolve(value);
      },
      (error: unknown) => {
        cancel();
        reject(error);
      },
    );
  });
}
