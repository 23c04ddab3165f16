import { PrxError } from "../../../../src/core/errors.ts";

/** The PrxError `fn` throws (anything else, or no error, fails the test). */
export function failureOf(fn: () => unknown): PrxError {
  try {
    fn();
  } catch (error) {
    if (error instanceof PrxError) return error;
    throw error;
  }
  throw new Error("expected a PrxError");
}
