/** web_search through fake SearXNG and Brave backends answering as their APIs do; offered only when configured. */
import { afterAll, describe, expect, test } from "bun:test";
import { ToolsSchema } from "../../src/config/schema.ts";
import { createWebSearchTool, ToolRegistry, WEB_SEARCH_MAX_QUERY_CHARS, WEB_SEARCH_MAX_RESPONSE_BYTES } from "../../src/tools/index.ts";
import { WebSearchResultsSchema } from "../../src/tools/builtins/schemas.ts";
import { startFakeBrave, startFakeSearxng } from "../fakes/search-servers.ts";

const TOKEN = "brave-test-token";
const TOKEN_ENV = "PRX_TEST_BRAVE_TOKEN";
process.env[TOKEN_ENV] = TOKEN;
const searxng = startFakeSearxng();
const noJson = startFakeSearxng({ jsonEnabled: false });
const brave = startFakeBrave(TOKEN);
const atLimit = startFakeSearxng({ results: 2, bodyBytes: WEB_SEARCH_MAX_RESPONSE_BYTES });
const onePast = startFakeSearxng({ results: 2, bodyBytes: WEB_SEARCH_MAX_RESPONSE_BYTES + 1 });
afterAll(async () => {
  delete process.env[TOKEN_ENV];
  await Promise.all([searxng.stop(), noJson.stop(), brave.stop(), atLimit.stop(), onePast.stop()]);
});

const context = { sessionId: "s", workspace: "/nonexistent", signal: new AbortController().signal };
const registry = (webSearch?: Record<string, unknown>) =>
  new ToolRegistry({ builtins: [createWebSearchTool(ToolsSchema.parse(webSearch ? { web_search: webSearch } : {}))] });
const search = async (tools: ToolRegistry, args: Record<string, unknown>) => tools.call("web_search", JSON.stringify(args), context);
const parsed = (output: string) => WebSearchResultsSchema.parse(JSON.parse(output));

describe("web_search: offered only when it can run", () => {
  test("no backend: not offered, and a call gets the way to configure one", async () => {
    const tools = registry();
    expect(tools.specs().map((spec) => spec.name)).toEqual([]);
    expect((await search(tools, { query: "x" })).error).toContain("[tools.web_search]");
  });

  test("brave whose token variable is unset: not offered", () => {
    const tools = registry({ backend: "brave", api_key_env: "PRX_TEST_UNSET_TOKEN" });
    expect(tools.specs()).toEqual([]);
  });

  test("max_results is 1-20: 20 is accepted, 21 is a config error", () => {
    expect(ToolsSchema.safeParse({ web_search: { backend: "searxng", url: searxng.url, max_results: 20 } }).success).toBe(true);
    const over = ToolsSchema.safeParse({ web_search: { backend: "searxng", url: searxng.url, max_results: 21 } });
    expect(over.error?.issues[0]?.path).toEqual(["web_search", "max_results"]);
  });

  test("a backend without what it needs is a config error", () => {
    expect(ToolsSchema.safeParse({ web_search: { backend: "searxng" } }).error?.issues[0]?.message).toContain("searxng needs url");
    expect(ToolsSchema.safeParse({ web_search: { backend: "brave" } }).error?.issues[0]?.message).toContain("brave needs api_key_env");
  });
});

describe("web_search: SearXNG", () => {
  test("asks /search with format=json and gives max_results results", async () => {
    const result = await search(registry({ backend: "searxng", url: searxng.url, max_results: 3 }), { query: "bun runtime" });
    expect(result.success).toBe(true);
    expect(parsed(result.output)).toEqual({
      query: "bun runtime",
      results: [1, 2, 3].map((n) => ({ title: `bun runtime result ${n}`, url: `https://example.org/bun%20runtime/${n}`, snippet: `About bun runtime, page ${n}.` })),
    });
    expect(searxng.requests.at(-1)!.path).toBe("/search?q=bun+runtime&format=json");
  });

  test("count up to max_results is honoured; more is capped at max_results", async () => {
    const tools = registry({ backend: "searxng", url: `${searxng.url}/`, max_results: 4 });
    expect(parsed((await search(tools, { query: "q", count: 4 })).output).results.length).toBe(4);
    expect(parsed((await search(tools, { query: "q", count: 2 })).output).results.length).toBe(2);
    expect(parsed((await search(tools, { query: "q", count: 20 })).output).results.length).toBe(4);
  });

  test("an answer of WEB_SEARCH_MAX_RESPONSE_BYTES is read; one byte more is refused", async () => {
    const whole = await search(registry({ backend: "searxng", url: atLimit.url }), { query: "q" });
    expect(parsed(whole.output).results.length).toBe(2);
    const over = await search(registry({ backend: "searxng", url: onePast.url }), { query: "q" });
    expect(over.error).toContain(`more than ${WEB_SEARCH_MAX_RESPONSE_BYTES} bytes`);
  });

  test("an instance without the json format enabled: the error says where to enable it", async () => {
    const result = await search(registry({ backend: "searxng", url: noJson.url }), { query: "q" });
    expect(result.error).toContain("HTTP 403");
    expect(result.error).toContain("search.formats");
  });

  test(`its schema is checked at the boundary: a query of ${WEB_SEARCH_MAX_QUERY_CHARS} characters passes, one more is refused`, async () => {
    const tools = registry({ backend: "searxng", url: searxng.url });
    expect((await search(tools, { query: "a".repeat(WEB_SEARCH_MAX_QUERY_CHARS) })).success).toBe(true);
    for (const args of [{ query: "a".repeat(WEB_SEARCH_MAX_QUERY_CHARS + 1) }, { query: "   " }, { query: "q", count: 21 }, { query: "q", count: 0 }, { query: "q", engine: "x" }]) {
      const result = await search(tools, args);
      expect([result.success, result.error?.startsWith("invalid arguments for web_search")]).toEqual([false, true]);
    }
  });
});

describe("web_search: Brave", () => {
  test("sends the subscription token and count; snippets come without <strong>", async () => {
    const result = await search(registry({ backend: "brave", url: brave.url, api_key_env: TOKEN_ENV, max_results: 2 }), { query: "zod" });
    expect(parsed(result.output).results).toEqual([1, 2].map((n) => ({ title: `zod result ${n}`, url: `https://example.org/zod/${n}`, snippet: `About zod, page ${n}.` })));
    expect(brave.requests.at(-1)).toEqual({ path: "/res/v1/web/search?q=zod&count=2", token: TOKEN });
  });

  test("a token Brave refuses is an error naming its answer", async () => {
    process.env[TOKEN_ENV] = "wrong";
    try {
      const result = await search(registry({ backend: "brave", url: brave.url, api_key_env: TOKEN_ENV }), { query: "zod" });
      expect(result.error).toContain("brave answered HTTP 422");
      expect(result.output).toContain("SUBSCRIPTION_TOKEN_INVALID");
    } finally {
      process.env[TOKEN_ENV] = TOKEN;
    }
  });
});
