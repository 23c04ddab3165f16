/**
 * Fake web search backends on 127.0.0.1, answering as their APIs are documented:
 * - SearXNG: `GET /search?q=...&format=json` -> `{query, number_of_results, results: [{url, title, content, engine,
 *   parsed_url, template, engines, positions, score, category}], answers, corrections, infoboxes, suggestions,
 *   unresponsive_engines}`; a format the instance does not enable is answered 403 Forbidden.
 * - Brave Search: `GET /res/v1/web/search?q=...&count=N` with `X-Subscription-Token` -> `{type: "search", query:
 *   {original}, web: {type: "search", results: [{title, url, description (query words in <strong>), ...}]}}`; a wrong
 *   token is answered 422 with an ErrorResponse; count is 1-20 (default 20).
 */

export interface FakeSearch {
  url: string;
  /** Every request's path with its query, and the subscription token it carried. */
  requests: Array<{ path: string; token: string | null }>;
  stop(): Promise<void>;
}

/** The pages the fake index knows: `count` results about `query`, numbered from 1. */
function hits(query: string, count: number) {
  return Array.from({ length: count }, (_, i) => ({
    url: `https://example.org/${encodeURIComponent(query)}/${i + 1}`,
    title: `${query} result ${i + 1}`,
    snippet: `About ${query}, page ${i + 1}.`,
  }));
}

/** `bodyBytes`: the answer is padded (an extra field the client ignores) to exactly this many bytes. */
export function startFakeSearxng(options: { jsonEnabled?: boolean; results?: number; bodyBytes?: number } = {}): FakeSearch {
  const requests: FakeSearch["requests"] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      requests.push({ path: url.pathname + url.search, token: null });
      if (url.pathname !== "/search") return new Response("Not Found", { status: 404 });
      const format = url.searchParams.get("format") ?? "html";
      if (format !== "json" || options.jsonEnabled === false) return new Response("Forbidden", { status: 403 });
      const query = url.searchParams.get("q") ?? "";
      const results = hits(query, options.results ?? 20).map((hit, i) => ({
        url: hit.url,
        title: hit.title,
        content: hit.snippet,
        engine: "duckduckgo",
        parsed_url: ["https", "example.org", `/${query}/${i + 1}`, "", "", ""],
        template: "default.html",
        engines: ["duckduckgo", "brave"],
        positions: [i + 1],
        score: 1 / (i + 1),
        category: "general",
      }));
      const answer: Record<string, unknown> = {
        query,
        number_of_results: 0,
        results,
        answers: [],
        corrections: [],
        infoboxes: [],
        suggestions: [],
        unresponsive_engines: [],
      };
      if (options.bodyBytes !== undefined) {
        answer.padding = "";
        answer.padding = "p".repeat(options.bodyBytes - JSON.stringify(answer).length);
      }
      return new Response(JSON.stringify(answer), { headers: { "content-type": "application/json" } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, stop: () => server.stop(true) };
}

export function startFakeBrave(token: string): FakeSearch {
  const requests: FakeSearch["requests"] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      const given = request.headers.get("x-subscription-token");
      requests.push({ path: url.pathname + url.search, token: given });
      if (url.pathname !== "/res/v1/web/search") return new Response("Not Found", { status: 404 });
      if (given !== token) {
        return Response.json(
          {
            type: "ErrorResponse",
            error: { id: "00000000-0000-0000-0000-000000000000", status: 422, code: "SUBSCRIPTION_TOKEN_INVALID", detail: "The provided subscription token is invalid.", meta: { component: "authentication" } },
            time: 1700000000,
          },
          { status: 422 },
        );
      }
      const query = url.searchParams.get("q") ?? "";
      const count = Number(url.searchParams.get("count") ?? "20");
      if (!Number.isInteger(count) || count < 1 || count > 20) {
        return Response.json({ type: "ErrorResponse", error: { status: 422, code: "VALIDATION", detail: "count must be 1-20" } }, { status: 422 });
      }
      const results = hits(query, count).map((hit) => ({
        title: hit.title,
        url: hit.url,
        is_source_local: false,
        is_source_both: false,
        description: hit.snippet.replace(query, `<strong>${query}</strong>`),
        profile: { name: "Example", url: hit.url, long_name: "example.org", img: "" },
        language: "en",
        family_friendly: true,
        type: "search_result",
        subtype: "generic",
        meta_url: { scheme: "https", netloc: "example.org", hostname: "example.org", favicon: "", path: "" },
      }));
      return Response.json({
        type: "search",
        query: { original: query, show_strict_warning: false, is_navigational: false, spellcheck_off: true, country: "us", more_results_available: true },
        mixed: { type: "mixed", main: results.map((_, index) => ({ type: "web", index, all: false })), top: [], side: [] },
        web: { type: "search", results, family_friendly: true },
      });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/res/v1/web/search`, requests, stop: () => server.stop(true) };
}
