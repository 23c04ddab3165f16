import { api } from "./api.ts";
import { h } from "./dom.ts";
import { onSnapshot } from "./live.ts";

/** GET /api/config/reload (src/gateway/routes/config-reload.ts). */
interface LastReload {
  last: { ok: boolean; generation: number; restart: string[]; error: { message: string; hint?: string } | null; at: string } | null;
}

/**
 * A banner over every view while config.toml was refused (the gateway keeps its running configuration) or holds
 * settings only a restart applies. It follows /health's `config` check on the live stream and reads the outcome
 * again when that changes.
 */
export function configBanner(): { el: HTMLElement; dispose(): void } {
  const el = h("div", { class: "banner", "data-testid": "config-banner", hidden: true });
  let seen: string | undefined;
  const render = (reload: LastReload["last"]) => {
    const lines: (HTMLElement | string)[] = [];
    if (reload && !reload.ok && reload.error) {
      lines.push(h("div", { class: "error" }, h("strong", {}, "config.toml not applied: "), reload.error.message, ` (still serving generation ${reload.generation})`));
    }
    if (reload && reload.restart.length > 0) {
      lines.push(h("div", { class: "notice" }, h("strong", {}, "Restart the gateway to apply: "), reload.restart.join(", ")));
    }
    el.replaceChildren(...lines);
    el.hidden = lines.length === 0;
  };
  const off = onSnapshot((snapshot) => {
    const detail = snapshot.health.checks.config?.detail ?? "";
    if (detail === seen) return;
    seen = detail;
    api<LastReload>("/api/config/reload").then(
      (answer) => render(answer.last),
      (error: unknown) => console.warn("could not read the last config reload", error),
    );
  });
  return { el, dispose: off };
}
