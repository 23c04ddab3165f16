import { existsSync } from "node:fs";
import { createInterface, type Interface } from "node:readline/promises";
import { CONFIG_TEMPLATE } from "../config/template.ts";
import { parseConfig } from "../config/loader.ts";
import { openWorkspace, type Workspace } from "../core/workspace.ts";
import { PROVIDER_PRESETS } from "../providers/presets.ts";
import { parseCommand, usageError } from "./args.ts";
import {
  configFor,
  storeSecrets,
  SUGGESTED_MODELS,
  TELEGRAM_TOKEN_ENV,
  testProvider,
  writeConfig,
  type InitChoices,
} from "./init-setup.ts";

const USAGE = `Usage: prx init [--force] [--workspace DIR]
       prx init --non-interactive --provider P [--model M] [--api-key-env VAR] [--base-url URL] [--test] [--force]
  On a terminal, asks which provider answers (and its model and key), tests it with one real call, offers a
  Telegram bot, and writes a commented config.toml. Keys go to secrets.env in the workspace (0600, read at start),
  never into config.toml. Without a terminal, or with --non-interactive, it never asks: with --provider it writes
  that provider's config (--test makes the one call and fails if it fails); without, the commented template.
  An existing config.toml is kept unless --force, which keeps it as config.toml.bak.
`;

const OTHER = "another OpenAI-compatible server";
const CHOICES = [...Object.keys(PROVIDER_PRESETS), OTHER, "offline"];

function out(line = ""): void {
  process.stdout.write(`${line}\n`);
}

async function ask(rl: Interface, question: string, fallback = ""): Promise<string> {
  const answer = (await rl.question(fallback ? `${question} [${fallback}]: ` : `${question}: `)).trim();
  return answer === "" ? fallback : answer;
}

async function yes(rl: Interface, question: string, fallback: boolean): Promise<boolean> {
  const answer = (await ask(rl, `${question} (y/n)`, fallback ? "y" : "n")).toLowerCase();
  return answer.startsWith("y");
}

/** A key typed or pasted at the prompt: its line is erased once read, so it does not stay on the screen. */
async function secret(rl: Interface, question: string): Promise<string> {
  const answer = (await rl.question(`${question}: `)).trim();
  if (answer !== "") process.stdout.write("\x1b[1A\x1b[2K" + `${question}: (kept)\n`);
  return answer;
}

async function interactive(workspace: Workspace): Promise<number> {
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
  try {
    out("prx init: a guided start. Nothing is written until the end; Ctrl-C stops.");
    out("");
    out("Which provider answers?");
    CHOICES.forEach((name, index) => out(`  ${String(index + 1).padStart(2)}) ${name}${PROVIDER_PRESETS[name]?.keyEnv === undefined && PROVIDER_PRESETS[name] ? " (on this machine, no key)" : ""}`));
    let picked: string | undefined;
    while (picked === undefined) {
      const answer = await ask(rl, "provider", "1");
      picked = CHOICES[Number(answer) - 1] ?? CHOICES.find((name) => name === answer);
      if (picked === undefined) out(`  choose 1-${CHOICES.length}, or a name`);
    }
    const choices: InitChoices = { provider: picked, model: "offline" };
    const secrets: Record<string, string> = {};
    if (picked === OTHER) {
      choices.baseUrl = await ask(rl, "its base URL (the part before /chat/completions)", "http://127.0.0.1:8080/v1");
      choices.provider = await ask(rl, "a name for it in config.toml", "local");
    }
    if (choices.provider !== "offline") {
      choices.model = await ask(rl, "model", SUGGESTED_MODELS[choices.provider] || undefined);
      const preset = PROVIDER_PRESETS[choices.provider];
      const needsKey = preset ? preset.keyEnv !== undefined : await yes(rl, "does it need an API key", false);
      if (needsKey) {
        choices.keyEnv = await ask(rl, "the environment variable that holds its key", preset?.keyEnv ?? "PRX_PROVIDER_KEY");
        if (process.env[choices.keyEnv]) out(`  ${choices.keyEnv} is set in your environment: prx reads it there.`);
        else {
          const key = await secret(rl, `paste the key to keep it in secrets.env (only you can read it), or press Enter to set ${choices.keyEnv} yourself`);
          if (key) secrets[choices.keyEnv] = key;
        }
      }
    }
    let config = configFor(choices);
    if (choices.provider !== "offline") {
      out(`testing ${choices.provider} / ${choices.model} with one call...`);
      const result = await testProvider(config, { ...process.env, ...secrets });
      if (result.ok) out(`  it answered: ${JSON.stringify(result.answer)}`);
      else {
        out(`  the call failed: ${result.error}`);
        if (!(await yes(rl, "write the config anyway (and fix it later: prx doctor checks it)", true))) return 1;
      }
    }
    out("");
    if (await yes(rl, "add a Telegram bot, so you can talk to the assistant from your phone", false)) {
      out("  1. In Telegram, open a chat with @BotFather and send /newbot; answer its two questions.");
      out("  2. It gives you a token like 123456789:AA...; paste it here.");
      const token = await secret(rl, `bot token (kept in secrets.env as ${TELEGRAM_TOKEN_ENV}), or Enter to skip`);
      if (token) {
        secrets[TELEGRAM_TOKEN_ENV] = token;
        choices.telegram = { tokenEnv: TELEGRAM_TOKEN_ENV };
        config = configFor(choices);
      }
    }
    return finish(workspace, config, secrets, choices);
  } finally {
    rl.close();
  }
}

function finish(workspace: Workspace, config: string, secrets: Record<string, string>, choices: InitChoices): number {
  const backup = writeConfig(workspace, config);
  if (backup) out(`kept the previous config as ${backup}`);
  out(`wrote ${workspace.configPath}`);
  if (Object.keys(secrets).length > 0) out(`kept ${Object.keys(secrets).join(", ")} in ${storeSecrets(workspace, secrets)} (0600)`);
  out(`workspace: ${workspace.root}`);
  out("next: prx chat   (prx doctor checks everything; prx gateway serves the API and the console)");
  if (choices.telegram) {
    out("Telegram: start `prx gateway`, send your bot a message: it answers with a pairing code;");
    out("          approve it here with `prx channel pair approve <code> --owner`.");
  }
  return 0;
}

export async function initCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(
    "prx init",
    argv,
    {
      force: { type: "boolean" },
      "non-interactive": { type: "boolean" },
      provider: { type: "string" },
      model: { type: "string" },
      "api-key-env": { type: "string" },
      "base-url": { type: "string" },
      test: { type: "boolean" },
    },
    false,
  );
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length > 0) throw usageError(`prx init: unexpected argument '${positionals[0]}'`);
  const workspace = openWorkspace(values.workspace);
  parseConfig(CONFIG_TEMPLATE, "template"); // the template must always be valid
  if (existsSync(workspace.configPath) && !values.force) {
    out(`${workspace.configPath} already exists; kept it (--force replaces it and keeps the old one as config.toml.bak)`);
    return 0;
  }
  const flagged = values.provider !== undefined;
  const asking = !flagged && values["non-interactive"] !== true && process.stdin.isTTY === true && process.stdout.isTTY === true;
  if (asking) return interactive(workspace);
  if (!flagged) return finish(workspace, CONFIG_TEMPLATE, {}, { provider: "offline", model: "offline" });
  const provider = values.provider!;
  const preset = PROVIDER_PRESETS[provider];
  if (!preset && provider !== "offline" && values["base-url"] === undefined) {
    throw usageError(`prx init: --provider ${provider} is not a preset (${Object.keys(PROVIDER_PRESETS).join(", ")}, offline); give --base-url for another server`);
  }
  const model = values.model ?? SUGGESTED_MODELS[provider];
  if (!model) throw usageError(`prx init: --model is needed for ${provider}`);
  const choices: InitChoices = { provider, model };
  if (values["base-url"] !== undefined) choices.baseUrl = values["base-url"];
  const keyEnv = values["api-key-env"] ?? preset?.keyEnv;
  if (keyEnv !== undefined) choices.keyEnv = keyEnv;
  const config = configFor(choices);
  if (values.test === true && provider !== "offline") {
    const result = await testProvider(config, process.env);
    if (!result.ok) {
      process.stderr.write(`prx init: the test call to ${provider} / ${model} failed: ${result.error}\nnothing was written\n`);
      return 1;
    }
    out(`tested ${provider} / ${model}: it answered ${JSON.stringify(result.answer)}`);
  }
  return finish(workspace, config, {}, choices);
}
