import { api } from "./api.ts";
import { badge, h, time } from "./dom.ts";
import { errorBox } from "./error-box.ts";
import { onSnapshot, type CronJob, type Snapshot } from "./live.ts";
import { usageChart } from "./usage.ts";

interface Provider { name: string; kind: string; role: string; reachable: boolean | null; detail: string; key_env: string | null; key_set: boolean | null }
interface Hooks { actions: number; doc: { hooks: Record<string, Array<Record<string, unknown>>> }; status: { path: string; runs: number; failures: number; last_error: { event: string; message: string; at: string } | null } }

function section(title: string, testid: string, ...body: Node[]): HTMLElement {
  return h("section", { class: "card", "data-testid": testid }, h("h3", {}, title), ...body);
}

/** Status: health, providers, usage, hooks, how many jobs are scheduled (the Scheduled page has them), plugin cron and the event bus; live over SSE. */
export function statusView(): { el: HTMLElement; dispose(): void } {
  const health = h("div");
  const overview = h("div", { class: "muted small" });
  const providers = h("div", {}, h("p", { class: "muted" }, "probing…"));
  const cron = h("div");
  const bus = h("div");
  const hooks = h("div");
  const usage = h("div");

  const renderSnapshot = (s: Snapshot) => {
    health.replaceChildren(
      h("p", {}, badge(s.health.status, s.health.status === "ok" ? "ok" : "bad")),
      h("ul", { class: "checks" }, ...Object.entries(s.health.checks).map(([name, c]) => h("li", {}, badge(name, c.ok ? "ok" : "bad"), " ", c.detail ?? ""))),
    );
    overview.textContent = `prx ${s.status.version} · up ${Math.round(s.status.uptime_s)} s · ${s.status.provider}/${s.status.model} · ${s.status.counts.sessions} sessions · ${s.status.counts.memories} memories (${s.status.memory_backend}) · ${s.status.counts.tools} tools · ${s.status.gateway.in_flight_turns} turns running · ${s.status.workspace}`;
    const jobs: CronJob[] = s.cron && "jobs" in s.cron ? s.cron.jobs : [];
    cron.replaceChildren(
      jobs.length === 0
        ? h("p", { class: "muted" }, s.cron && "state" in s.cron ? `plugins ${s.cron.state}` : "No cron jobs.")
        : h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "job"), h("th", {}, "schedule"), h("th", {}, "last fire"), h("th", {}, "next fire"), h("th", {}, "runs / errors"))),
            h("tbody", {}, ...jobs.map((j) => h("tr", {}, h("td", {}, j.id), h("td", {}, h("code", {}, j.schedule)),
              h("td", {}, j.lastRun ? time(j.lastRun.at) : "never", j.lastRun && !j.lastRun.ok ? badge("failed", "bad") : ""),
              h("td", {}, time(j.nextDue)), h("td", {}, `${j.fired} / ${j.errors}`, j.lastError ? h("div", { class: "small error" }, j.lastError.message) : ""))))),
    );
    const e = s.events;
    bus.replaceChildren(
      e && "published" in e
        ? h("dl", { class: "counters" }, ...(["published", "delivered", "dropped", "rejected", "subscriptions", "listeners"] as const).flatMap((k) => [h("dt", {}, k), h("dd", {}, String(e[k]))]))
        : h("p", { class: "muted" }, e ? `plugins ${(e as { state: string }).state}` : "No event bus in this gateway."),
    );
  };
  const loadProviders = async () => {
    try {
      const { providers: list } = await api<{ providers: Provider[] }>("/api/providers");
      providers.replaceChildren(h("ul", { class: "checks" }, ...list.map((p) => h("li", {},
        badge(p.name, p.reachable === false ? "bad" : p.reachable ? "ok" : "plain"), ` ${p.kind} · ${p.role} · ${p.detail}`,
        p.key_env ? h("span", { class: "muted small" }, ` · key ${p.key_env} ${p.key_set ? "set" : "not set"}`) : ""))));
    } catch (error) {
      providers.replaceChildren(errorBox(error));
    }
  };
  const loadUsage = async () => {
    try {
      usage.replaceChildren(await usageChart());
    } catch (error) {
      usage.replaceChildren(errorBox(error));
    }
  };
  const loadHooks = async () => {
    try {
      const data = await api<Hooks>("/api/hooks");
      const events = Object.entries(data.doc.hooks);
      hooks.replaceChildren(
        h("p", { class: "muted small" }, `${data.status.path} · ${data.actions} actions · ${data.status.runs} runs · ${data.status.failures} failures`),
        events.length === 0 ? h("p", { class: "muted" }, "hooks.json defines no action.") : h("ul", {}, ...events.flatMap(([event, actions]) => actions.map((a) => h("li", {}, h("code", {}, event), " → ", h("code", {}, [a.command, ...((a.args as string[]) ?? [])].join(" ")))))),
        data.status.last_error ? h("div", { class: "error small" }, `${data.status.last_error.event}: ${data.status.last_error.message}`) : "",
      );
    } catch (error) {
      hooks.replaceChildren(errorBox(error));
    }
  };
  const scheduled = h("div");
  const loadScheduled = async () => {
    try {
      const { jobs } = await api<{ jobs: Array<{ last_error: string | null }> }>("/api/cron/jobs");
      const failing = jobs.filter((j) => j.last_error).length;
      scheduled.replaceChildren(
        h("p", {}, jobs.length === 0 ? "No scheduled job." : `${jobs.length} scheduled job${jobs.length === 1 ? "" : "s"}`, failing ? " " : "", failing ? badge(`${failing} failing`, "bad") : ""),
        h("a", { href: "#/cron", "data-testid": "open-scheduled" }, "Open Scheduled jobs"),
      );
    } catch (error) {
      scheduled.replaceChildren(errorBox(error));
    }
  };
  const stop = onSnapshot(renderSnapshot);
  void loadScheduled();
  void loadProviders();
  void loadHooks();
  void loadUsage();
  const el = h(
    "section",
    { class: "page grid", "data-testid": "status-view" },
    h("header", { class: "page-head wide" }, h("h2", {}, "Status"), overview),
    section("Health", "health", health),
    section("Providers", "providers", providers, h("button", { class: "small", onclick: () => void loadProviders() }, "Probe again")),
    section("Usage", "usage", usage),
    section("Hooks (hooks.json)", "hooks", hooks),
    section("Scheduled jobs (cron tool)", "scheduled-summary", scheduled),
    section("Cron (plugins)", "cron", cron),
    section("Event bus", "events", bus),
  );
  return { el, dispose: stop };
}
