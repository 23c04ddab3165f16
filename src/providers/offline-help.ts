import type { ProviderFailure } from "./types.ts";

/** What the offline provider tells the user about itself: the setup hint that fits the workspace, or why it answered. */

const PROVIDER_EXAMPLE =
  '  default_provider = "openai"\n' +
  '  default_model = "gpt-4o-mini"\n' +
  "  [providers.openai]\n" +
  '  api_key_env = "OPENAI_API_KEY"\n' +
  "and export OPENAI_API_KEY.";

/** A workspace with no config.toml yet. */
export const OFFLINE_SETUP_HELP = "To use a real model, run `prx init`, or add to config.toml:\n" + PROVIDER_EXAMPLE;

/** The first reply of a conversation with the offline provider, when no provider failed before it. */
export function offlineIntro(name: string, configPath: string | null): string {
  const who =
    name === "offline"
      ? "I am prx's built-in offline provider: no language model answers here, so I only echo."
      : `I am "${name}", an offline provider ([providers.${name}] kind = "offline"): I only echo.`;
  if (configPath === null) return `${who}\n${OFFLINE_SETUP_HELP}`;
  return (
    `${who}\nTo use a real model, add a provider to ${configPath} (its commented examples show how), e.g.\n` +
    `${PROVIDER_EXAMPLE}\nThen \`prx doctor\` checks that prx can reach it.`
  );
}

/** Why the offline provider answered instead of the configured one(s): which failed, why, and how to fix it. */
export function fallbackNote(name: string, failures: readonly ProviderFailure[]): string {
  const lines = failures.map((failure) => {
    const fix = failure.hint ? `\n  fix: ${failure.hint}` : "";
    return `- provider "${failure.provider}" failed: ${failure.message}${fix}`;
  });
  const listed = name === "offline" ? "the built-in offline provider" : `the offline provider "${name}"`;
  return `This answer comes from ${listed}, listed in [reliability] fallback_providers, because:\n${lines.join("\n")}`;
}
