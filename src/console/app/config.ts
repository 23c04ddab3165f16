import { api, describe } from "./api.ts";
import { badge, h } from "./dom.ts";

interface ConfigReport {
  path: string | null;
  config: Record<string, unknown>;
  secrets: Array<{ key: string; env: string; set: boolean }>;
  validation: { ok: boolean; error: { code: string; message: string; hint?: string } | null };
}

/** Config: the effective configuration (secrets only as their variable names) and whether config.toml validates. */
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
            : h("ul", {}, ...report.secrets.map((s) => h("li", {}, h("code", {}, s.key), " = ", h("code", {}, s.env), " ", badge(s.set ? "set" : "not set", s.set ? "ok" : "warn"))))),
        h("section", { class: "card" }, h("h3", {}, "Effective configuration"), h("pre", { class: "mono", "data-testid": "config-json" }, JSON.stringify(report.config, null, 2))),
      );
    } catch (error) {
      const { message, hint } = describe(error);
      body.replaceChildren(h("div", { class: "error" }, message, hint ? h("div", { class: "hint" }, hint) : ""));
    }
  })();
  return { el: h("section", { class: "page", "data-testid": "config-view" }, h("header", { class: "page-head" }, h("h2", {}, "Config")), body), dispose: () => {} };
}
