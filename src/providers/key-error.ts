import { secretFromEnv } from "../config/secrets.ts";
import { PrxError } from "../core/errors.ts";

/**
 * Fail fast when a provider names a key variable that is not set. 503 at the gateway: the service cannot answer
 * until its environment is fixed (a client's retry will not help, but nothing is wrong with the request).
 */
export function missingKeyError(provider: string, keyEnv: string): PrxError {
  return new PrxError("CONFIG_INVALID", `${provider}: environment variable ${keyEnv} is not set`, {
    hint:
      `export ${keyEnv}=<your key> in the environment prx runs in (restart a running gateway), ` +
      `or remove api_key_env from [providers.${provider}]`,
    status: 503,
    details: { provider, keyEnv },
  });
}

/** A provider's configuration problem found without the network: its key's variable is named but not set. */
export function missingKeyProblem(provider: string, keyEnv: string | undefined, env: Record<string, string | undefined> | undefined): PrxError | null {
  return keyEnv && !secretFromEnv(keyEnv, env) ? missingKeyError(provider, keyEnv) : null;
}
