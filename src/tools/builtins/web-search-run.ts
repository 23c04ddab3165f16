import type { ToolsConfig, WebSearchConfig } from "../../config/schema.ts";
import { errorMessage } from "../../core/errors.ts";
import { OUTBOUND_MAX_REDIRECTS, outboundFetch, type OutboundPolicy } from "../../core/outbound/index.ts";
import { WEB_SEARCH_MAX_RESPONSE_BYTES } from "../limits.ts";
import { fail, ok } from "../result.ts";
import type { ToolContext, ToolResult } from "../types.ts";
import type { WebSearchArgs, WebSearchResults } from "./schemas.ts";
import { BraveAnswer, SearxngAnswer } from "./web-search-wire.ts";
import { webSearchUnavailable } from "./web-search-policy.ts";
import type { BuiltinToolsOptions } from "./types.ts";

/** What web_search does once called (web-search.ts declares it; this loads with the first call). */

export const BRAVE_SEARCH_URL = "https://api.search.brave.com/res/v1/web/search";

type Result = WebSearchResults["results"][number];

/** Brave marks the query's words in snippets with <strong>; the model gets plain text. */
function plain(text: string | null | undefined): string {
  return (text ?? "").replace(/<\/?strong>/g, "").trim();
}

function request(search: WebSearchConfig, query: string, count: number): { url: string; headers: Record<string, string> } {
  if (search.backend === "searxng") {
    const url = new URL("search", search.url!.endsWith("/") ? search.url! : `${search.url!}/`);
    url.searchParams.set("q", query);
    url.searchParams.set("format", "json");
    return { url: url.href, headers: { accept: "application/json" } };
  }
  const url = new URL(search.url ?? BRAVE_SEARCH_URL);
  url.searchParams.set("q", query);
  url.searchParams.set("count", String(count));
  return { url: url.href, headers: { accept: "application/json", "x-subscription-token": process.env[search.api_key_env!] ?? "" } };
}

function results(search: WebSearchConfig, body: unknown): Result[] {
  if (search.backend === "searxng") {
    return SearxngAnswer.parse(body).results.map((r) => ({ title: r.title, url: r.url, snippet: plain(r.content) }));
  }
  return (BraveAnswer.parse(body).web?.results ?? []).map((r) => ({ title: r.title, url: r.url, snippet: plain(r.description) }));
}

/**
 * A search through an MCP server's tool: its own words are the results (MCP search tools answer in text of their own
 * shape), under the query they answer.
 */
async function searchByTool(
  search: WebSearchConfig,
  query: string,
  count: number,
  context: ToolContext,
  callTool: BuiltinToolsOptions["callTool"],
): Promise<ToolResult> {
  const tool = search.tool!;
  if (!callTool) return fail(`web_search: ${tool} cannot be called from here (this host offers no other tools)`);
  const args: Record<string, unknown> = { [search.query_arg ?? "query"]: query };
  if (search.count_arg) args[search.count_arg] = count;
  const answer = await callTool(tool, JSON.stringify(args), context);
  if (!answer.success) return fail(`web_search: ${tool} failed: ${answer.error ?? "no reason given"}`, answer.output);
  return ok(JSON.stringify({ query, source: tool, text: answer.output }));
}

/**
 * One search: the backend's URL comes from config (so it may be a private address, such as a SearXNG of your own);
 * the answer is bounded in time and size like any outbound fetch.
 */
export async function webSearch(
  config: ToolsConfig,
  args: WebSearchArgs,
  context: ToolContext,
  callTool?: BuiltinToolsOptions["callTool"],
): Promise<ToolResult> {
  const unavailable = webSearchUnavailable(config);
  if (unavailable !== undefined) return fail(unavailable);
  const search = config.web_search!;
  const count = Math.min(args.count ?? search.max_results, search.max_results);
  if (search.backend === "mcp") return searchByTool(search, args.query, count, context, callTool);
  const policy: OutboundPolicy = {
    allowPrivate: true,
    allowAddresses: [],
    allowHosts: [],
    denyHosts: [],
    timeoutMs: search.timeout_ms,
    maxBytes: WEB_SEARCH_MAX_RESPONSE_BYTES,
    maxRedirects: OUTBOUND_MAX_REDIRECTS,
  };
  const { url, headers } = request(search, args.query, count);
  try {
    const response = await outboundFetch(url, policy, { headers, signal: context.signal });
    const text = new TextDecoder().decode(response.bytes);
    if (response.status < 200 || response.status >= 300) {
      const why = search.backend === "searxng" && response.status === 403 ? " (is the json format enabled in its settings.yml search.formats?)" : "";
      return fail(`web_search: ${search.backend} answered HTTP ${response.status}${why}`, text.slice(0, 2000));
    }
    if (response.truncated) return fail(`web_search: ${search.backend} answered more than ${WEB_SEARCH_MAX_RESPONSE_BYTES} bytes`);
    const found: WebSearchResults = { query: args.query, results: results(search, JSON.parse(text)).slice(0, count) };
    return ok(JSON.stringify(found));
  } catch (error) {
    return fail(`web_search: ${search.backend}: ${errorMessage(error)}`);
  }
}
