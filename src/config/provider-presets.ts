/**
 * Well-known provider names: `[providers.<name>]` may omit base_url (and api_key_env) for these.
 * Local servers (ollama, vllm, lmstudio) need no key.
 */
export interface ProviderPreset {
  kind: "openai-compatible" | "anthropic";
  baseUrl: string;
  keyEnv?: string;
}

export const PROVIDER_PRESETS: Readonly<Record<string, ProviderPreset>> = {
  openai: { kind: "openai-compatible", baseUrl: "https://api.openai.com/v1", keyEnv: "OPENAI_API_KEY" },
  openrouter: { kind: "openai-compatible", baseUrl: "https://openrouter.ai/api/v1", keyEnv: "OPENROUTER_API_KEY" },
  groq: { kind: "openai-compatible", baseUrl: "https://api.groq.com/openai/v1", keyEnv: "GROQ_API_KEY" },
  together: { kind: "openai-compatible", baseUrl: "https://api.together.xyz/v1", keyEnv: "TOGETHER_API_KEY" },
  deepseek: { kind: "openai-compatible", baseUrl: "https://api.deepseek.com/v1", keyEnv: "DEEPSEEK_API_KEY" },
  ollama: { kind: "openai-compatible", baseUrl: "http://127.0.0.1:11434/v1" },
  vllm: { kind: "openai-compatible", baseUrl: "http://127.0.0.1:8000/v1" },
  lmstudio: { kind: "openai-compatible", baseUrl: "http://127.0.0.1:1234/v1" },
  anthropic: { kind: "anthropic", baseUrl: "https://api.anthropic.com", keyEnv: "ANTHROPIC_API_KEY" },
};
