import { MAX_OUTPUT_BYTES } from "../limits.ts";
import { GuestFailure } from "./types.ts";

/** Approximate encoded size of a result value; stops counting once over the cap. */
export function checkOutputSize(value: unknown, where: string): void {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total <= MAX_OUTPUT_BYTES) {
    const v = stack.pop();
    if (typeof v === "string") total += v.length;
    else if (v instanceof Uint8Array) total += v.byteLength;
    else if (Array.isArray(v)) {
      total += 2;
      for (const item of v) stack.push(item);
    } else if (v && typeof v === "object") {
      for (const [k, item] of Object.entries(v)) {
        total += k.length + 4;
        stack.push(item);
      }
    } else total += 8;
  }
  if (total > MAX_OUTPUT_BYTES) {
    throw new GuestFailure("output", `${where} returned more than ${MAX_OUTPUT_BYTES} bytes (MAX_OUTPUT_BYTES)`, false);
  }
}
