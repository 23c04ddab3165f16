import type { Config } from "../config/schema.ts";

/**
 * Common models without image input. Anything not listed, and not marked `vision = false` in
 * `[providers.<name>.model_info."<model>"]`, is sent images.
 */
const NO_VISION_MODELS: readonly RegExp[] = [
  /^offline$/,
  /^gpt-3\.5/,
  /^gpt-4(-0314|-0613|-32k.*)?$/,
  /^o1-mini/,
  /^o3-mini/,
  /^deepseek-(chat|reasoner|coder)/,
  /^(meta-llama\/)?llama-?3(\.[01])?[-:]/i,
  /^mistral(-tiny|-small-2402|:7b)/,
  /^qwen2?\.?5?-coder/,
  /^claude-(instant|2)/,
];

/** Whether `model` on provider `provider` takes images: config first, then the built-in table, else yes. */
export function modelSeesImages(config: Config, provider: string, model: string): boolean {
  const settings = config.providers[provider];
  const configured = settings?.model_info[model]?.vision;
  if (configured !== undefined) return configured;
  if (provider === "offline" || settings?.kind === "offline") return false;
  const bare = model.includes("/") && !model.startsWith("meta-llama/") ? model.slice(model.lastIndexOf("/") + 1) : model;
  return !NO_VISION_MODELS.some((pattern) => pattern.test(bare));
}
