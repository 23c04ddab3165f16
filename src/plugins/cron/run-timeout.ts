import { PrxError } from "../../core/errors.ts";

/** Resolve with the job's output (non-strings are JSON-encoded) or reject with PLUGIN_TIMEOUT after `ms`. */
export function withTimeout(promise: Promise<string>, ms: number, id: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new PrxError("PLUGIN_TIMEOUT", `cron job "${id}" did not finish within ${ms} ms`)),
      ms,
    );
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(typeof value === "string" ? value : JSON.stringify(value));
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
