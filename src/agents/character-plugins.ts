/** What becomes of one of a character's `plugins` in prx. */
export interface PluginAdvice {
  plugin: string;
  /**
   * builtin: prx does it itself (the agent loop, storage); provider: a [providers] entry; channel: a [channels]
   * entry; remote: run it as a remote plugin (install steps in `install`); unsupported: nothing in prx does it.
   */
  kind: "builtin" | "provider" | "channel" | "remote" | "unsupported";
  note: string;
  /** For `remote`: the commands that install it into the workspace. */
  install?: string[];
}

/** elizaOS plugins whose work prx's own code does. */
const BUILTIN: Record<string, string> = {
  "@elizaos/plugin-bootstrap": "prx's agent loop does what it does (message handling, the character's prompt, memory)",
  "@elizaos/plugin-sql": "prx keeps sessions and memory itself ([storage]: SQLite or PostgreSQL)",
  "@elizaos/plugin-local-embedding": "memory embeddings come from a provider's embedding_model ([memory])",
};

/** Model plugins: a [providers] entry of prx talks to the same service. */
const PROVIDERS: Record<string, string> = {
  "@elizaos/plugin-openai": 'kind = "openai-compatible", base_url = "https://api.openai.com/v1", api_key_env = "OPENAI_API_KEY"',
  "@elizaos/plugin-anthropic": 'kind = "anthropic", api_key_env = "ANTHROPIC_API_KEY"',
  "@elizaos/plugin-openrouter": 'kind = "openai-compatible", base_url = "https://openrouter.ai/api/v1", api_key_env = "OPENROUTER_API_KEY"',
  "@elizaos/plugin-ollama": 'kind = "openai-compatible", base_url = "http://127.0.0.1:11434/v1"',
  "@elizaos/plugin-groq": 'kind = "openai-compatible", base_url = "https://api.groq.com/openai/v1", api_key_env = "GROQ_API_KEY"',
  "@elizaos/plugin-google-genai":
    'kind = "openai-compatible", base_url = "https://generativelanguage.googleapis.com/v1beta/openai", api_key_env = "GOOGLE_GENERATIVE_AI_API_KEY"',
};

/** Platform plugins: a [channels] kind of prx connects to the same platform. */
const CHANNELS: Record<string, string> = {
  "@elizaos/plugin-telegram": "telegram",
  "@elizaos/plugin-discord": "discord",
  "@elizaos/plugin-slack": "slack",
  "@elizaos/plugin-matrix": "matrix",
};

/** Plugins of platforms prx has no channel for and whose clients are not plugin objects it can host. */
const UNSUPPORTED: Record<string, string> = {
  "@elizaos/plugin-twitter": "prx has no X/Twitter channel",
  "@elizaos/plugin-farcaster": "prx has no Farcaster channel",
};

/** An npm package name (scoped or not), as `npm install` takes it. */
const NPM_NAME = /^(@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/;

/** The plugin directory name a package installs into: its name without the scope and `plugin-` prefix. */
export function pluginDirName(pkg: string): string {
  return pkg.replace(/^@[^/]+\//, "").replace(/^plugin-/, "") || "plugin";
}

/**
 * What prx makes of each of a character's plugins. Any other npm package is a plugin object prx can run as a remote
 * plugin (elizaOS 1.x's IAgentRuntime as far as the remote runtime honours it: see src/plugins/README.md); the
 * steps install it into `plugins/<dir>/` with the three-line worker entry.
 */
export function adviseOnPlugins(plugins: readonly string[]): PluginAdvice[] {
  return plugins.map((plugin): PluginAdvice => {
    if (BUILTIN[plugin]) return { plugin, kind: "builtin", note: BUILTIN[plugin]! };
    if (PROVIDERS[plugin]) return { plugin, kind: "provider", note: `add a [providers.<name>] table: ${PROVIDERS[plugin]}` };
    if (CHANNELS[plugin]) return { plugin, kind: "channel", note: `add a [channels.<name>] table with kind = "${CHANNELS[plugin]}" and bind it to the agent` };
    if (UNSUPPORTED[plugin]) return { plugin, kind: "unsupported", note: UNSUPPORTED[plugin]! };
    if (!NPM_NAME.test(plugin)) return { plugin, kind: "unsupported", note: "not an npm package name: nothing to install" };
    const dir = pluginDirName(plugin);
    return {
      plugin,
      kind: "remote",
      note: "runs as a remote plugin (its actions, providers and evaluators reach the agent); the settings it reads go in [plugins.<dir>] config",
      install: [
        `mkdir -p plugins/${dir} && cd plugins/${dir} && npm install ${plugin}`,
        `printf 'import plugin from "${plugin}";\\nimport { bootstrap } from "@elizaos/plugin-worker-runtime";\\nbootstrap(plugin);\\n' > worker.js`,
        `printf '[plugin]\\nname = "${dir}"\\nversion = "0.1.0"\\nruntime = "remote"\\n\\n[remote]\\nentry = "worker.js"\\n' > plugin.toml`,
        "prx plugins validate .",
      ],
    };
  });
}
