import { api, json } from "./api.ts";
import { badge, h } from "./dom.ts";
import { errorBox } from "./error-box.ts";
import { outcomeLine } from "./outcome.ts";

/** One server of GET /api/mcp. */
interface McpServer {
  name: string;
  transport: "stdio" | "http";
  target: string;
  enabled: boolean;
  eager: boolean;
  state: string;
  connected_via: string | null;
  pid: number | null;
  tools_from: "server" | "cache" | null;
  tools: Array<{ name: string; tool: string; description: string }>;
  calls: number;
  errors: number;
  restarts: number;
  garbage_lines: number;
  last_error: string | null;
  retry_in_ms: number;
}

interface McpList {
  servers: McpServer[];
  serve: { tools: string[] };
}

function tone(state: string): "ok" | "warn" | "bad" | "plain" {
  return state === "ready" ? "ok" : state === "failed" ? "bad" : state === "starting" || state === "restarting" ? "warn" : "plain";
}

function serverCard(server: McpServer, restart: (name: string) => void): HTMLElement {
  const running = server.state === "ready";
  return h(
    "article",
    { class: "card item", "data-server": server.name, "data-testid": "mcp-server" },
    h("header", {},
      h("h3", {}, server.name),
      badge(server.transport),
      badge(server.state, tone(server.state)),
      server.enabled
        ? h("button", { class: "small", "data-testid": "mcp-restart", "aria-label": `${running ? "restart" : "start"} ${server.name}`, onclick: () => restart(server.name) }, running ? "Restart" : "Start")
        : ""),
    h("div", { class: "small muted wrap" }, h("code", {}, server.target)),
    h("p", { class: "small" },
      `${server.calls} calls · ${server.errors} errors · ${server.restarts} restarts`,
      server.pid ? ` · pid ${server.pid}` : "",
      server.connected_via ? ` · ${server.connected_via}` : "",
      server.eager ? " · started with the gateway" : " · started on first use",
      server.retry_in_ms > 0 ? ` · next start in ${Math.ceil(server.retry_in_ms / 1000)} s` : ""),
    server.last_error ? h("div", { class: "error", "data-testid": "mcp-error" }, server.last_error) : "",
    server.tools.length === 0
      ? h("p", { class: "muted small" }, server.tools_from === null ? "Tools not read yet: they are listed once the server has started." : "No tools.")
      : h("details", { class: "tools" },
          h("summary", {}, `${server.tools.length} tool${server.tools.length === 1 ? "" : "s"}`, server.tools_from === "cache" ? h("span", { class: "muted small" }, " (from the cache)") : ""),
          h("ul", { "data-testid": "mcp-tools" }, ...server.tools.map((t) => h("li", {}, h("code", {}, t.name), t.description ? h("span", { class: "muted small" }, ` ${t.description}`) : "")))),
  );
}

/** MCP: the servers prx connects to (state, counters, last error, tools; start or restart) and what prx's own MCP server exposes. */
export function mcpView(): { el: HTMLElement; dispose(): void } {
  const list = h("div", { "data-testid": "mcp-servers" }, h("p", { class: "muted" }, "loading…"));
  const serve = h("div", { class: "card" });
  const refresh = async () => {
    try {
      const data = await api<McpList>("/api/mcp");
      list.replaceChildren(...data.servers.map((s) => serverCard(s, (name) => void restart(name))));
      if (data.servers.length === 0) list.append(h("p", { class: "muted" }, "No MCP server is configured: add one as [mcp.servers.<name>] in config.toml."));
      serve.replaceChildren(
        h("h3", {}, "Served by prx"),
        h("p", { class: "muted small" }, "What `prx mcp serve` and POST /mcp expose:"),
        data.serve.tools.length ? h("p", {}, ...data.serve.tools.map((t) => h("code", { class: "chip" }, t))) : h("p", { class: "muted" }, "Nothing."),
      );
    } catch (error) {
      list.replaceChildren(errorBox(error));
    }
  };
  const outcome = outcomeLine("mcp-outcome", refresh);
  const restart = (name: string) =>
    outcome.run(`starting ${name}…`, async () => {
      const after = await api<McpServer>(`/api/mcp/${encodeURIComponent(name)}/restart`, json("POST"));
      return `${name}: ${after.state}${after.pid ? ` (pid ${after.pid})` : ""}`;
    });
  void refresh();
  const el = h(
    "section",
    { class: "page", "data-testid": "mcp-view" },
    h("header", { class: "page-head" }, h("h2", {}, "MCP servers"), h("button", { onclick: () => void refresh(), "data-testid": "mcp-refresh" }, "Refresh")),
    outcome.el,
    list,
    serve,
  );
  return { el, dispose() {} };
}
