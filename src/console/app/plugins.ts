import { api, describe, json } from "./api.ts";
import { ago, badge, h } from "./dom.ts";
import { onSnapshot, type Plugin, type PluginList } from "./live.ts";

const PROBES: Record<string, string> = {
  status: "{}",
  middleware_test: '{ "stage": "inbound", "data": { "text": "hello", "channel": "console", "user_id": "me", "session_id": "probe", "metadata": {} } }',
  cron_run: '{ "name": "" }',
  provider_chat: '{ "name": "", "messages": [{ "role": "user", "content": "hello" }] }',
  storage: '{ "name": "", "op": "health" }',
};

function tone(status: string): "ok" | "warn" | "bad" | "plain" {
  return status === "active" ? "ok" : status === "error" || status === "conflict" ? "bad" : status === "starting" ? "warn" : "plain";
}

/** `file:line` in a load error, shown apart so the place to fix stands out. */
function where(message: string): string | null {
  return /((?:\/|\.{0,2}\/)?[\w./-]+\.(?:toml|wasm|ts|js|json|wat)(?::\d+(?::\d+)?)?)/.exec(message)?.[1] ?? null;
}

/** A status message as the API writes it: the message, then "\n  hint: …" when there is one. */
function split(message: string): { text: string; hint: string | null } {
  const at = message.indexOf("\n  hint: ");
  return at < 0 ? { text: message, hint: null } : { text: message.slice(0, at), hint: message.slice(at + 9) };
}

function pluginCard(plugin: Plugin, reload: (name: string) => void): HTMLElement {
  const { text, hint } = split(plugin.message ?? "");
  const place = text ? where(text) : null;
  return h(
    "article",
    { class: "card plugin", "data-plugin": plugin.name, "data-testid": "plugin" },
    h("header", {},
      h("h3", {}, plugin.name, plugin.version ? h("span", { class: "muted small" }, ` ${plugin.version}`) : ""),
      badge(plugin.kind ?? "kind unknown"),
      badge(plugin.status, tone(plugin.status)),
      h("button", { class: "small", onclick: () => reload(plugin.name), "data-testid": "reload-one", "aria-label": `reload ${plugin.name}` }, "Reload")),
    plugin.description ? h("p", { class: "muted" }, plugin.description) : "",
    text
      ? h("div", { class: plugin.status === "active" ? "note" : "error", "data-testid": "plugin-error" },
          plugin.error_code ? h("strong", {}, `${plugin.error_code}: `) : "", text,
          place ? h("div", { class: "where" }, "at ", h("code", { "data-testid": "error-place" }, place)) : "",
          hint ? h("div", { class: "hint" }, hint) : "")
      : "",
    plugin.reload.error ? h("div", { class: "error" }, `last reload: ${plugin.reload.outcome}: ${plugin.reload.error}`) : "",
    plugin.permissions.missing.length ? h("div", { class: "error" }, `missing grants: ${plugin.permissions.missing.join(", ")}`) : "",
    plugin.capabilities.length === 0 ? "" : h("table", { class: "caps" },
      h("thead", {}, h("tr", {}, h("th", {}, "capability"), h("th", {}, "calls"), h("th", {}, "errors"), h("th", {}, "last"), h("th", {}, "last error"))),
      h("tbody", {}, ...plugin.capabilities.map((cap) =>
        h("tr", { "data-capability": cap.name },
          h("td", {}, `${cap.type} ${cap.name}`, cap.live ? "" : h("span", { class: "muted" }, " (not live)")),
          h("td", { "data-testid": "invocations" }, String(cap.counters.invocations)),
          h("td", {}, String(cap.counters.errors)),
          h("td", {}, cap.counters.last_event ? `${cap.counters.last_event.name} ${ago(cap.counters.last_event.at)}` : "—"),
          h("td", { class: "small" }, cap.counters.last_error ? `${cap.counters.last_error.message} (${ago(cap.counters.last_error.at)})` : "—"))))),
  );
}

/** Plugins: status, counters, errors with their place; reload one or all with each plugin's outcome; probes. */
export function pluginsView(): { el: HTMLElement; dispose(): void } {
  const list = h("div", { class: "plugins", "data-testid": "plugins" });
  const outcome = h("div", { class: "outcome", role: "status", "data-testid": "reload-outcome" });
  const head = h("p", { class: "muted" });
  let latest: PluginList | null = null;

  const render = (data: PluginList) => {
    latest = data;
    head.textContent = `generation ${data.generation} · ${data.count} plugin${data.count === 1 ? "" : "s"}`;
    list.replaceChildren(...data.plugins.map((p) => pluginCard(p, (name) => void reload(name))));
    if (data.count === 0) list.append(h("p", { class: "muted" }, "No plugins in this workspace's plugins/ folder."));
    const names = data.plugins.map((p) => p.name);
    if (target.options.length !== names.length) target.replaceChildren(...names.map((n) => h("option", { value: n }, n)));
  };
  const refresh = async () => {
    try {
      render(await api<PluginList>("/api/plugins"));
    } catch (error) {
      list.replaceChildren(h("div", { class: "error" }, describe(error).message));
    }
  };
  const reload = async (name?: string) => {
    outcome.replaceChildren(h("span", { class: "muted" }, name ? `reloading ${name}…` : "reloading every plugin…"));
    try {
      const result = await api<{ generation: number; plugins: Array<{ name: string; outcome: string; error: string | null }> }>(
        name ? `/api/plugins/${encodeURIComponent(name)}/reload` : "/api/plugins/reload",
        json("POST"),
      );
      outcome.replaceChildren(
        h("strong", {}, `generation ${result.generation}`),
        h("ul", {}, ...result.plugins.map((p) => h("li", { "data-outcome": p.outcome }, `${p.name}: `, badge(p.outcome, p.outcome === "failed_kept_old" ? "bad" : "ok"), p.error ? ` ${p.error}` : ""))),
      );
    } catch (error) {
      const { message, hint, code } = describe(error);
      outcome.replaceChildren(h("div", { class: "error" }, h("strong", {}, `${code}: ${message}`), hint ? h("div", { class: "hint" }, hint) : ""));
    }
    await refresh();
  };

  const target = h("select", { "aria-label": "plugin", "data-testid": "probe-plugin" });
  const action = h("select", { "aria-label": "probe", "data-testid": "probe-action" }, ...Object.keys(PROBES).map((a) => h("option", { value: a }, a)));
  const args = h("textarea", { rows: 4, class: "mono", "aria-label": "probe arguments (JSON)", "data-testid": "probe-args" }, PROBES.status!);
  const probeOut = h("pre", { class: "probe-out", "data-testid": "probe-out" });
  action.addEventListener("change", () => (args.value = PROBES[action.value] ?? "{}"));
  const probe = h("form", { class: "card probe" }, h("h3", {}, "Probe"), h("div", { class: "row" }, target, action), args, h("button", { type: "submit" }, "Run probe"), probeOut);
  probe.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const extra = JSON.parse(args.value || "{}") as Record<string, unknown>;
      const result = await api(`/api/plugins/${encodeURIComponent(target.value)}/probe`, json("POST", { ...extra, action: action.value }));
      probeOut.textContent = JSON.stringify(result, null, 2);
    } catch (error) {
      const { message, hint, code } = describe(error);
      probeOut.textContent = `${code}: ${message}${hint ? `\nhint: ${hint}` : ""}`;
    }
  });

  const stop = onSnapshot((snapshot) => {
    const live = snapshot.plugins;
    if (live && "plugins" in live) render(live);
  });
  void refresh();
  const el = h(
    "section",
    { class: "page", "data-testid": "plugins-view" },
    h("header", { class: "page-head" }, h("h2", {}, "Plugins"), head, h("button", { onclick: () => void reload(), "data-testid": "reload-all" }, "Reload all")),
    outcome,
    list,
    probe,
  );
  return { el, dispose: () => (stop(), (latest = null)) };
}
