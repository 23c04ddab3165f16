import { api, describe } from "./api.ts";
import { badge, h } from "./dom.ts";

interface ConfigReport {
  path: string | null;
  config: Record<string, unknown>;
  secrets: Array<{ key: string; env: string; set: boolean; in_use: boolean }>;
  origins: Array<{ key: string; origin: "file" | "env"; env?: string }>;
  validation: { ok: boolean; error: { code: string; message: string; hint?: string } | null };
}

/** The value at a dotted key of the effective config, as short text. */
function valueAt(config: Record<string, unknown>, key: string): string {
  let at: unknown = config;
  for (const part of key.split(".")) at = typeof at === "object" && at !== null ? (at as Record<string, unknown>)[part] : undefined;
  return at === undefined ? "" : JSON.stringify(at);
}

function secretBadge(s: { set: boolean; in_use: boolean }): HTMLElement {
  if (!s.in_use) return badge("not used", "plain");
  return badge(s.set ? "set" : "not set", s.set ? "ok" : "warn");
}

/**
 * Config: whether config.toml validates, the secrets (variable names only, flagged only where they apply), every
 * value that is not a default with where it came from (config.toml or an environment variable), and the whole
 * effective configuration.
 */
export function configView(): { el: HTMLElement; dispose(): void } {
  const body = h("div", {}, h("p", { class: "muted" }, "loading…"));
  void (async () => {
    try {
      const report = await api<ConfigReport>("/api/config");
      const v = report.validation;
      body.replaceChildren(
        h("section", { class: "card", "data-testid": "validation" },
          h("h3", {}, "Validation ", badge(v.ok ? "valid" : "invalid", v.ok ? "ok" : "bad")),
          h("p", { class: "muted small" }, report.path ?? "no config.toml: defaults"),
          v.error ? h("div", { class: "error" }, h("strong", {}, `${v.error.code}: `), v.error.message, v.error.hint ? h("div", { class: "hint" }, v.error.hint) : "") : ""),
        h("section", { class: "card" }, h("h3", {}, "Secrets"),
          report.secrets.length === 0 ? h("p", { class: "muted" }, "No setting names a secret variable.")
            : h("ul", { "data-testid": "secrets" }, ...report.secrets.map((s) => h("li", { "data-key": s.key }, h("code", {}, s.key), " = ", h("code", {}, s.env), " ", secretBadge(s))))),
        h("section", { class: "card" }, h("h3", {}, "Where the values come from"),
          h("p", { class: "muted small" }, "Values set in config.toml or by an environment variable (which wins); every other value is the default."),
          report.origins.length === 0 ? h("p", { class: "muted" }, "Every value is a default.")
            : h("div", { class: "scroll" }, h("table", { class: "list", "data-testid": "config-origins" },
                h("thead", {}, h("tr", {}, h("th", {}, "key and value"), h("th", {}, "from"))),
                h("tbody", {}, ...report.origins.map((o) => h("tr", { "data-key": o.key, "data-origin": o.origin },
                  h("td", { class: "wrap" }, h("code", {}, o.key), " ", h("span", { class: "mono small" }, valueAt(report.config, o.key)),
                    o.env ? h("div", { class: "muted small" }, `set by ${o.env}`) : ""),
                  h("td", {}, o.origin === "env" ? badge("env") : badge("config.toml")))))))),
        h("details", { class: "card" }, h("summary", {}, h("strong", {}, "Effective configuration"), h("span", { class: "muted small" }, " (all of it, defaults included, as JSON)")),
          h("pre", { class: "mono", "data-testid": "config-json" }, JSON.stringify(report.config, null, 2))),
      );
    } catch (error) {
      const { message, hint } = describe(error);
      body.replaceChildren(h("div", { class: "error" }, message, hint ? h("div", { class: "hint" }, hint) : ""));
    }
  })();
  return { el: h("section", { class: "page", "data-testid": "config-view" }, h("header", { class: "page-head" }, h("h2", {}, "Config")), body), dispose: () => {} };
}
