import { PrxError } from "../core/errors.ts";

/** The URL in `env[urlEnv]`, or CONFIG_INVALID naming the variable. */
export function urlFromEnv(urlEnv: string, env: Record<string, string | undefined>, what: string): string {
  const url = env[urlEnv];
  if (!url) {
    throw new PrxError("CONFIG_INVALID", `${what} needs a URL in the environment variable ${urlEnv}, which is not set`, {
      hint: `export ${urlEnv}=... (or name another variable with url_env)`,
    });
  }
  return url;
}
