import { PrxError } from "../core/errors.ts";
import type { Config, ProviderConfig } from "../config/schema.ts";
import type { FetchLike } from "./http.ts";
import { OfflineProvider } from "./offline.ts";
import { DeferredHttpProvider } from "./deferred-http.ts";
import type { HttpProviderOptions } from "./http-provider.ts";
import { PROVIDER_PRESETS } from "./presets.ts";
import { withReliability, type ReliabilityOptions } from "./reliability.ts";
import { OFFLINE_PROVIDER } from "./routes.ts";
import type { Provider, ProviderResolver } from "./types.ts";

/** Names with these prefixes belong to plugins; only they reach `external`, so no plugin shadows a built-in. */
export const EXTERNAL_PROVIDER_PREFIXES = ["wasm:", "remote:"] as const;
export const CUSTOM_PROVIDER_PREFIX = "custom:";

export interface ProviderResolverOptions {
  /** Plugin providers (stable proxies) for `wasm:` / `remote:` names. */
  external?: (name: string) => Provider | undefined;
  /** The plugin provider names `external` serves now. */
  externalNames?: () => string[];
  env?: Record<string, string | undefined>;
  fetch?: FetchLike | typeof fetch;
  /** Test hooks for the retry wrapper (sleep, random). */
  reliability?: Pick<ReliabilityOptions, "sleep" | "random">;
  /** The workspace's config.toml (null: none yet), so the offline provider's setup hint fits the workspace. */
  configPath?: string | null;
}

export function isExternalProviderName(name: string): boolean {
  return EXTERNAL_PROVIDER_PREFIXES.some((prefix) => name.startsWith(prefix));
}

/** A built-in provider named with no table of its own: the schema's defaults, the preset's URL and key. */
function presetSettings(name: string): ProviderConfig | undefined {
  if (!Object.hasOwn(PROVIDER_PRESETS, name)) return undefined;
  return { kind: "openai-compatible", models: [], timeout_ms: 120_000, headers: {}, image_urls: "pass", model_info: {} };
}

export function createProviderResolver(config: Config, options: ProviderResolverOptions = {}): ProviderResolver {
  const cache = new Map<string, Provider>();
  const env = options.env ?? process.env;
  const fetchImpl = options.fetch as FetchLike | undefined;

  const names = (): string[] => [
    OFFLINE_PROVIDER,
    ...Object.keys(config.providers).filter((name) => name !== OFFLINE_PROVIDER),
  ];

  const unknown = (name: string, where: string): PrxError =>
    new PrxError("PROVIDER_UNKNOWN", `unknown provider "${name}"${where}`, {
      hint:
        `available: ${names().join(", ")}; also custom:<url>, and wasm:<name> / remote:<name> from plugins; ` +
        `add [providers.${name}] to config.toml to define it`,
      status: 400,
      details: { name, available: names() },
    });

  const http = (name: string, settings: ProviderConfig): Provider => {
    const preset = Object.hasOwn(PROVIDER_PRESETS, name) ? PROVIDER_PRESETS[name] : undefined;
    const usePreset = settings.base_url === undefined && preset !== undefined;
    const baseUrl = settings.base_url ?? preset?.baseUrl;
    if (!baseUrl) {
      const presetNames = Object.keys(PROVIDER_PRESETS).join(", ");
      throw new PrxError("CONFIG_INVALID", `[providers.${name}] has no base_url`, {
        hint: `set base_url (e.g. "https://api.example.com/v1"), or use a known name: ${presetNames}`,
      });
    }
    const keyEnv = settings.api_key_env ?? (usePreset ? preset.keyEnv : undefined);
    const shared: HttpProviderOptions = {
      name,
      baseUrl,
      env,
      timeoutMs: settings.timeout_ms,
      headers: settings.headers,
      models: settings.models,
    };
    if (keyEnv !== undefined) shared.keyEnv = keyEnv;
    if (settings.max_tokens !== undefined) shared.maxTokens = settings.max_tokens;
    if (settings.embedding_model !== undefined) shared.embeddingModel = settings.embedding_model;
    if (settings.transcription_model !== undefined) shared.transcriptionModel = settings.transcription_model;
    if (fetchImpl) shared.fetch = fetchImpl;
    // kind defaults to openai-compatible in the schema, so a bare [providers.anthropic] means the preset.
    const anthropic = settings.kind === "anthropic" || (usePreset && preset.kind === "anthropic");
    return new DeferredHttpProvider(anthropic ? "anthropic" : settings.kind === "openai-responses" ? "openai-responses" : "openai-compatible", shared);
  };

  const custom = (name: string): Provider => {
    const url = name.slice(CUSTOM_PROVIDER_PREFIX.length);
    const parsed = URL.canParse(url) ? new URL(url) : undefined;
    if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
      throw new PrxError("PROVIDER_UNKNOWN", `provider "${name}": "${url}" is not an http(s) URL`, {
        hint: "use custom:<base url of an OpenAI-compatible API>, e.g. custom:http://127.0.0.1:8080/v1",
        status: 400,
      });
    }
    const shared: HttpProviderOptions = { name, baseUrl: url, env };
    if (fetchImpl) shared.fetch = fetchImpl;
    return new DeferredHttpProvider("openai-compatible", shared);
  };

  const base = (name: string, where = ""): Provider => {
    if (isExternalProviderName(name)) {
      const found = options.external?.(name);
      if (!found) {
        throw new PrxError("PROVIDER_UNKNOWN", `no plugin provides "${name}"${where}`, {
          hint: "check that the plugin is installed and enabled (prx plugins list) and exports that provider",
          status: 400,
          details: { name, available: names() },
        });
      }
      return found;
    }
    const cached = cache.get(name);
    if (cached) return cached;
    let provider: Provider;
    const settings = Object.hasOwn(config.providers, name) ? config.providers[name] : presetSettings(name);
    const offline = { configPath: options.configPath ?? null };
    if (name === OFFLINE_PROVIDER) provider = new OfflineProvider(OFFLINE_PROVIDER, offline);
    else if (name.startsWith(CUSTOM_PROVIDER_PREFIX)) provider = custom(name);
    else if (settings) provider = settings.kind === "offline" ? new OfflineProvider(name, offline) : http(name, settings);
    else throw unknown(name, where);
    cache.set(name, provider);
    return provider;
  };

  // Built-in chains are made once; one with a plugin provider is rebuilt per call (plugins come and go).
  const chains = new Map<string, Provider>();
  return {
    resolve(name: string): Provider {
      const cached = chains.get(name);
      if (cached) return cached;
      const primary = base(name);
      const fallbackNames = config.reliability.fallback_providers.filter((fallback) => fallback !== name);
      const fallbacks = fallbackNames.map((fallback) => base(fallback, " (named in [reliability] fallback_providers)"));
      const chain = withReliability(primary, fallbacks, { ...config.reliability, ...options.reliability });
      if (![name, ...fallbackNames].some(isExternalProviderName)) chains.set(name, chain);
      return chain;
    },
    names,
    pluginNames: () => options.externalNames?.() ?? [],
  };
}
