import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setConfigKey, tomlValue } from "../config/edit.ts";
import { parseConfig } from "../config/loader.ts";
import { parseSecrets, SECRETS_FILE } from "../config/secrets-file.ts";
import { CONFIG_TEMPLATE } from "../config/template.ts";
import { errorMessage, PrxError } from "../core/errors.ts";
import type { Workspace } from "../core/workspace.ts";
import { PROVIDER_PRESETS } from "../providers/presets.ts";
import { createProviderResolver } from "../providers/resolver.ts";

/** What `prx init` sets up: the provider that answers, and perhaps a Telegram bot. */
export interface InitChoices {
  /** A preset name, "offline", or the name of another OpenAI-compatible server. */
  provider: string;
  model: string;
  /** Another server's base URL (not for presets or offline). */
  baseUrl?: string;
  /** The variable holding the key (a preset's default unless given); none for local servers. */
  keyEnv?: string;
  telegram?: { tokenEnv: string };
}

/** The first model offered for each preset (its own list is asked when the server is local). */
export const SUGGESTED_MODELS: Readonly<Record<string, string>> = {
  openai: "gpt-4o-mini",
  anthropic: "claude-sonnet-4-5",
  openrouter: "openai/gpt-4o-mini",
  groq: "llama-3.3-70b-versatile",
  together: "meta-llama/Llama-3.3-70B-Instruct-Turbo",
  deepseek: "deepseek-chat",
  ollama: "llama3.2",
  vllm: "",
  lmstudio: "",
  offline: "offline",
};

export const TELEGRAM_TOKEN_ENV = "TELEGRAM_BOT_TOKEN";
/** How long the test call of `prx init` may take. */
export const INIT_TEST_TIMEOUT_MS = 30_000;

/** The commented template with the choices written into it (each edit keeps the template's comments). */
export function configFor(choices: InitChoices): string {
  let text = CONFIG_TEMPLATE;
  const set = (path: string[], value: string) => (text = setConfigKey(text, path, value));
  set(["default_provider"], tomlValue(choices.provider));
  set(["default_model"], JSON.stringify(choices.model));
  if (choices.provider !== "offline") {
    const table = ["providers", choices.provider];
    const preset = PROVIDER_PRESETS[choices.provider];
    set([...table, "kind"], JSON.stringify(preset?.kind ?? "openai-compatible"));
    if (!preset) set([...table, "base_url"], JSON.stringify(choices.baseUrl));
    if (choices.keyEnv && choices.keyEnv !== preset?.keyEnv) set([...table, "api_key_env"], JSON.stringify(choices.keyEnv));
    set([...table, "models"], JSON.stringify([choices.model]));
  }
  if (choices.telegram) {
    set(["channels", "telegram", "kind"], '"telegram"');
    set(["channels", "telegram", "enabled"], "true");
    set(["channels", "telegram", "token_env"], JSON.stringify(choices.telegram.tokenEnv));
  }
  parseConfig(text, "the config prx init made");
  return text;
}

/** Write a file only its owner can read, replacing it whole. */
function writePrivate(path: string, text: string): void {
  const staged = `${path}.${process.pid}.tmp`;
  writeFileSync(staged, text, { mode: 0o600 });
  chmodSync(staged, 0o600);
  renameSync(staged, path);
}

/** Keep `values` in the workspace's secrets.env (0600), beside what it holds already. */
export function storeSecrets(workspace: Workspace, values: Record<string, string>): string {
  const path = join(workspace.root, SECRETS_FILE);
  const kept = existsSync(path) ? parseSecrets(readFileSync(path, "utf8"), path) : new Map<string, string>();
  for (const [name, value] of Object.entries(values)) {
    if (/[\r\n]/.test(value)) throw new PrxError("USAGE", `the value for ${name} holds a line break; paste it on one line`);
    kept.set(name, value);
  }
  const lines = [...kept].map(([name, value]) => `${name}=${JSON.stringify(value)}`);
  writePrivate(path, `# keys stored by prx init: read at start, never shown; only you can read this file\n${lines.join("\n")}\n`);
  return path;
}

/** Write config.toml (0600), keeping a previous one as config.toml.bak; the backup's path, if one was made. */
export function writeConfig(workspace: Workspace, text: string): string | null {
  const backup = existsSync(workspace.configPath) ? `${workspace.configPath}.bak` : null;
  if (backup) writeFileSync(backup, readFileSync(workspace.configPath), { mode: 0o600 });
  writePrivate(workspace.configPath, text);
  return backup;
}

/** One real call to the chosen provider and model: its answer, or why it failed. */
export async function testProvider(config: string, env: Record<string, string | undefined>): Promise<{ ok: true; answer: string } | { ok: false; error: string }> {
  const parsed = parseConfig(config, "config.toml");
  const provider = createProviderResolver(parsed, { env }).resolve(parsed.default_provider);
  try {
    const reply = await provider.chat({
      model: parsed.default_model,
      messages: [{ role: "user", content: "Reply with the single word: ready" }],
      maxTokens: 16,
      signal: AbortSignal.timeout(INIT_TEST_TIMEOUT_MS),
    });
    return { ok: true, answer: reply.text.trim().slice(0, 200) };
  } catch (error) {
    const hint = error instanceof PrxError && error.hint ? ` (${error.hint})` : "";
    return { ok: false, error: `${errorMessage(error)}${hint}` };
  }
}
