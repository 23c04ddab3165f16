/** Resolve a secret (a provider's or a channel's key) from the environment variable it names. */
export function secretFromEnv(varName: string | undefined, env: Record<string, string | undefined> = process.env): string | undefined {
  if (!varName) return undefined;
  const value = env[varName];
  return value && value.length > 0 ? value : undefined;
}
