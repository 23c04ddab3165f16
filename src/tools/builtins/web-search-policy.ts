import type { ToolsConfig } from "../../config/schema.ts";

export const WEB_SEARCH_HINT =
  'configure a backend under [tools.web_search] in config.toml: backend = "searxng" with url = "http://127.0.0.1:8888", ' +
  'or backend = "brave" with api_key_env = "BRAVE_API_KEY", ' +
  'or backend = "mcp" with tool = "mcp__<server>__<search tool>" of a server in [mcp.servers]';

/** Why web_search refuses every call under this config (no backend, or Brave's token variable unset). */
export function webSearchUnavailable(config: ToolsConfig, env: Record<string, string | undefined> = process.env): string | undefined {
  const search = config.web_search;
  if (search === undefined) return `web_search has no backend. To enable it, ${WEB_SEARCH_HINT}`;
  if (search.backend === "brave" && !env[search.api_key_env!]) {
    return `web_search: the environment variable ${search.api_key_env} (tools.web_search.api_key_env) is not set; set it to your Brave Search API token`;
  }
  return undefined;
}
