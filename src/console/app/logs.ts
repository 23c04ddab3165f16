import { events, request } from "./api.ts";
import { h } from "./dom.ts";
import { errorBox } from "./error-box.ts";

/** One line of GET /api/logs/stream's `lines` events. */
interface LogLine {
  at: string | null;
  level: "trace" | "debug" | "info" | "warn" | "error";
  scope: string | null;
  text: string;
}

/** Lines kept on the page; older ones scroll away. */
const LINES_KEPT = 2000;
const LEVELS = ["trace", "debug", "info", "warn", "error"] as const;

/**
 * Logs: the gateway's log file (logs/prx.log) as it grows, from the lowest level chosen; pausing keeps the view
 * still while lines go on arriving underneath.
 */
export function logsView(): { el: HTMLElement; dispose(): void } {
  const out = h("div", { class: "log mono", role: "log", "aria-live": "polite", "data-testid": "log-lines" });
  const state = h("span", { class: "muted small", "data-testid": "log-state" }, "connecting…");
  const level = h("select", { "aria-label": "lowest level", "data-testid": "log-level" }, ...LEVELS.map((l) => h("option", { value: l, selected: l === "info" }, l)));
  const follow = h("input", { type: "checkbox", checked: true, "aria-label": "follow" });
  let stream: AbortController | null = null;

  const add = (lines: LogLine[]) => {
    const stick = follow.checked;
    out.append(...lines.map((line) => h("div", { class: `line ${line.level}`, "data-level": line.level }, line.text)));
    while (out.childElementCount > LINES_KEPT) out.firstElementChild!.remove();
    if (stick) out.scrollTop = out.scrollHeight;
  };
  const connect = async () => {
    stream?.abort();
    const controller = new AbortController();
    stream = controller;
    out.replaceChildren();
    state.textContent = "connecting…";
    try {
      const response = await request(`/api/logs/stream?level=${level.value}`, { signal: controller.signal, headers: { accept: "text/event-stream" } });
      state.textContent = "live";
      for await (const { event, data } of events(response)) {
        if (event !== "lines") continue;
        const { path, lines } = data as { path: string; lines: LogLine[] };
        state.textContent = `live · ${path}`;
        add(lines);
      }
      if (!controller.signal.aborted) state.textContent = "the stream ended: reload the page to follow again";
    } catch (error) {
      if (controller.signal.aborted) return;
      state.textContent = "not following";
      out.append(errorBox(error));
    }
  };
  level.addEventListener("change", () => void connect());
  void connect();
  const el = h(
    "section",
    { class: "page", "data-testid": "logs-view" },
    h("header", { class: "page-head" }, h("h2", {}, "Logs"), state),
    h("div", { class: "row" },
      h("label", { class: "check" }, "from ", level),
      h("label", { class: "check" }, follow, "follow"),
      h("button", { class: "small", onclick: () => out.replaceChildren() }, "Clear")),
    out,
  );
  return { el, dispose: () => stream?.abort() };
}
