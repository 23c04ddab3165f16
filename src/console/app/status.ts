import { api, describe, json } from "./api.ts";
import { auditList, pendingApprovalsList } from "./approvals.ts";
import { cronJobsList } from "./cron-jobs.ts";
import { badge, h, time } from "./dom.ts";
import { onSnapshot, type Channel, type CronJob, type Snapshot } from "./live.ts";
import { usageChart } from "./usage.ts";

interface Provider { name: string; kind: string; role: string; reachable: boolean | null; detail: string; key_env: string | null; key_set: boolean | null }
interface Memory { key: string; content: string; category: string; private: boolean; score: number | null }
interface Hooks { actions: number; doc: { hooks: Record<string, Array<Record<string, unknown>>> }; status: { path: string; runs: number; failures: number; last_error: { event: string; message: string; at: string } | null } }

function section(title: string, testid: string, ...body: Node[]): HTMLElement {
  return h("section", { class: "card", "data-testid": testid }, h("h3", {}, title), ...body);
}

/** A section as wide as the page (a table with a column of buttons). */
function wideSection(title: string, testid: string, ...body: Node[]): HTMLElement {
  return h("section", { class: "card wide", "data-testid": testid }, h("h3", {}, title), ...body);
}

function errorLine(error: unknown): HTMLElement {
  const { message, hint } = describe(error);
  return h("div", { class: "error" }, message, hint ? h("div", { class: "hint" }, hint) : "");
}

/** Status: health, tool calls waiting for approval, the audit log, providers, memory (search, forget), hooks, the cron tool's jobs (run now, remove), plugin cron, event bus, channels (restart); live over SSE. */
export function statusView(): { el: HTMLElement; dispose(): void } {
  const health = h("div");
  const overview = h("div", { class: "muted small" });
  const providers = h("div", {}, h("p", { class: "muted" }, "probing…"));
  const cron = h("div");
  const bus = h("div");
  const channels = h("div");
  const hooks = h("div");
  const usage = h("div");
  const memoryCount = h("p", { class: "muted" });
  const found = h("ul", { class: "memories", "data-testid": "memory-results" });
  const query = h("input", { type: "search", placeholder: "search what prx remembers", "aria-label": "search memory", "data-testid": "memory-search" });

  const renderSnapshot = (s: Snapshot) => {
    health.replaceChildren(
      h("p", {}, badge(s.health.status, s.health.status === "ok" ? "ok" : "bad")),
      h("ul", { class: "checks" }, ...Object.entries(s.health.checks).map(([name, c]) => h("li", {}, badge(name, c.ok ? "ok" : "bad"), " ", c.detail ?? ""))),
    );
    overview.textContent = `prx ${s.status.version} · up ${Math.round(s.status.uptime_s)} s · ${s.status.provider}/${s.status.model} · ${s.status.counts.sessions} sessions · ${s.status.counts.tools} tools · ${s.status.gateway.in_flight_turns} turns running · ${s.status.workspace}`;
    memoryCount.textContent = `${s.status.counts.memories} memories (${s.status.memory_backend})`;
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
    const list: Channel[] = s.channels?.channels ?? [];
    channels.replaceChildren(
      list.length === 0
        ? h("p", { class: "muted" }, "No channels enabled.")
        : h("ul", { class: "channels" }, ...list.map((c) => h("li", { "data-channel": c.name },
            badge(c.state, c.state === "running" ? "ok" : c.state === "crash_loop" ? "bad" : "warn"), ` ${c.name} (${c.kind}) pid ${c.pid ?? "—"} · ${c.restarts} restarts · in `, time(c.last_inbound), " · out ", time(c.last_outbound),
            c.last_error ? h("div", { class: "small error" }, c.last_error) : "",
            h("button", { class: "small", onclick: () => void restart(c.name) }, "Restart")))),
    );
  };
  const restart = async (name: string) => {
    try {
      await api(`/api/channels/${encodeURIComponent(name)}/restart`, json("POST"));
    } catch (error) {
      channels.append(errorLine(error));
    }
  };
  const loadProviders = async () => {
    try {
      const { providers: list } = await api<{ providers: Provider[] }>("/api/providers");
      providers.replaceChildren(h("ul", { class: "checks" }, ...list.map((p) => h("li", {},
        badge(p.name, p.reachable === false ? "bad" : p.reachable ? "ok" : "plain"), ` ${p.kind} · ${p.role} · ${p.detail}`,
        p.key_env ? h("span", { class: "muted small" }, ` · key ${p.key_env} ${p.key_set ? "set" : "not set"}`) : ""))));
    } catch (error) {
      providers.replaceChildren(errorLine(error));
    }
  };
  const loadUsage = async () => {
    try {
      usage.replaceChildren(await usageChart());
    } catch (error) {
      usage.replaceChildren(errorLine(error));
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
      hooks.replaceChildren(errorLine(error));
    }
  };
  const searchMemory = async () => {
    const q = query.value.trim();
    if (!q) return found.replaceChildren();
    try {
      const { entries } = await api<{ entries: Memory[] }>(`/api/memory/search?q=${encodeURIComponent(q)}`);
      found.replaceChildren(...entries.map((m) => h("li", {}, h("strong", {}, m.key), m.private ? badge("private", "warn") : "", ` ${m.content} `, h("span", { class: "muted small" }, m.category),
        h("button", { class: "small danger", onclick: () => void forget(m.key), "aria-label": `forget ${m.key}` }, "Forget"))));
      if (entries.length === 0) found.append(h("li", { class: "muted" }, "Nothing relevant."));
    } catch (error) {
      found.replaceChildren(h("li", {}, errorLine(error)));
    }
  };
  const forget = async (key: string) => {
    try {
      await api(`/api/memory/entries/${encodeURIComponent(key)}`, json("DELETE"));
    } catch (error) {
      found.append(h("li", {}, errorLine(error)));
    }
    await searchMemory();
  };
  const memoryForm = h("form", { class: "row" }, query, h("button", { type: "submit" }, "Search"));
  memoryForm.addEventListener("submit", (e) => (e.preventDefault(), void searchMemory()));

  const approvals = pendingApprovalsList();
  const audit = auditList();
  const scheduled = cronJobsList();
  const stop = onSnapshot(renderSnapshot);
  void scheduled.refresh();
  void approvals.refresh();
  void audit.refresh();
  void loadProviders();
  void loadHooks();
  void loadUsage();
  const el = h(
    "section",
    { class: "page grid", "data-testid": "status-view" },
    h("header", { class: "page-head wide" }, h("h2", {}, "Status"), overview),
    section("Health", "health", health),
    section("Approvals", "approvals", approvals.el, h("button", { class: "small", onclick: () => void approvals.refresh() }, "Refresh")),
    section("Audit log", "audit-log", audit.el, h("button", { class: "small", onclick: () => void audit.refresh() }, "Refresh")),
    section("Providers", "providers", providers, h("button", { class: "small", onclick: () => void loadProviders() }, "Probe again")),
    section("Usage", "usage", usage),
    section("Memory", "memory", memoryCount, memoryForm, found),
    section("Hooks (hooks.json)", "hooks", hooks),
    wideSection("Scheduled jobs", "scheduled-jobs", scheduled.el, h("button", { class: "small", onclick: () => void scheduled.refresh() }, "Refresh")),
    section("Cron (plugins)", "cron", cron),
    section("Event bus", "events", bus),
    section("Channels", "channels", channels),
  );
  return { el, dispose: stop };
}
