import { api, json } from "./api.ts";
import { badge, h, time } from "./dom.ts";
import { errorBox } from "./error-box.ts";
import { outcomeLine } from "./outcome.ts";
import { scheduleInWords, utcText, type JobSchedule } from "./schedule-words.ts";

/** A job the assistant scheduled with the cron tool, as GET /api/cron/jobs lists it. */
interface ScheduledJob {
  id: string;
  name: string | null;
  session_id: string;
  agent: string | null;
  channel: string;
  chat_id: string | null;
  thread_id: string | null;
  owner: string | null;
  schedule: JobSchedule;
  payload: { kind: string; text?: string; message?: string };
  created_at: string;
  next_run: string | null;
  last_run: string | null;
  last_error: string | null;
  run_requested: boolean;
  last_result: JobRun | null;
}

/** One run of a job, as GET /api/cron/jobs/:id/runs lists them (newest first). */
interface JobRun {
  at: string;
  slot: string | null;
  ok: boolean;
  detail: string;
}

/** The runs of a job, or why they could not be fetched. */
type RunsOutcome = { runs: JobRun[] } | { error: unknown };

function what(job: ScheduledJob): string {
  return job.payload.kind === "systemEvent" ? `remind: ${job.payload.text}` : `ask: ${job.payload.message}`;
}

function deliveredTo(job: ScheduledJob): string {
  const chat = job.chat_id ? ` chat ${job.chat_id}${job.thread_id ? ` thread ${job.thread_id}` : ""}` : "";
  return `${job.channel}${chat}${job.owner ? `, asked by ${job.owner}` : ""}`;
}

/** How its newest kept run went (scheduled or asked for); with none kept, what the schedule state last recorded. */
function lastResult(job: ScheduledJob): HTMLElement {
  const last = job.last_result;
  if (last) return badge(last.ok ? "last run ok" : "last run failed", last.ok ? "ok" : "bad");
  if (job.last_error) return badge("last run failed", "bad");
  return badge(job.last_run ? "ran" : "never run", "plain");
}

function lastRun(job: ScheduledJob): Array<Node | string> {
  const last = job.last_result;
  if (!last) return [job.last_run ? time(job.last_run) : "never", job.last_error ? h("div", { class: "error small" }, job.last_error) : ""];
  return [time(last.at), last.slot === null ? " (run now)" : "", last.detail ? h("div", { class: last.ok ? "small muted" : "error small" }, last.detail) : ""];
}

const line = (label: string, ...value: Array<Node | string>) => h("div", { class: "small" }, h("span", { class: "muted" }, `${label}: `), ...value);

function runsList(runs: JobRun[]): HTMLElement {
  if (runs.length === 0) return h("p", { class: "muted small" }, "No run yet.");
  return h(
    "ul",
    { class: "checks", "data-testid": "cron-job-runs" },
    ...runs.map((r) =>
      h(
        "li",
        { "data-run-ok": String(r.ok) },
        badge(r.ok ? "ok" : "failed", r.ok ? "ok" : "bad"),
        " ",
        h("time", { datetime: r.at, title: r.at }, utcText(r.at)),
        r.slot === null ? h("span", { class: "muted small" }, " (run now)") : "",
        r.detail ? h("div", { class: r.ok ? "small muted" : "small error" }, r.detail) : "",
      ),
    ),
  );
}

/**
 * Scheduled jobs: the jobs the assistant added with its cron tool, in every session: what each does, its schedule in
 * words, next and last run (with the result), its session and agent, where it is delivered; its recent runs, Run now
 * and Remove (after a confirmation).
 */
export function cronJobsView(): { el: HTMLElement; dispose(): void } {
  const list = h("div", { class: "grid", "data-testid": "cron-jobs" });
  const outcome = outcomeLine("cron-outcome", () => refresh());
  const open = new Set<string>();

  const fetchRuns = (jobId: string): Promise<RunsOutcome> =>
    api<{ runs: JobRun[] }>(`/api/cron/jobs/${encodeURIComponent(jobId)}/runs`).then(
      ({ runs }) => ({ runs }),
      (error: unknown) => ({ error }),
    );
  const runsPanel = (outcome: RunsOutcome): Node[] => ("runs" in outcome ? [h("h4", {}, "Recent runs"), runsList(outcome.runs)] : [errorBox(outcome.error)]);

  /** A card; the runs of an open job come with it, fetched by the same refresh, so the card shows one moment. */
  const card = (job: ScheduledJob, openRuns: RunsOutcome | undefined): HTMLElement => {
    const id = encodeURIComponent(job.id);
    const label = job.name ?? job.id;
    const runs = h("div", { "data-testid": "cron-runs-panel" });
    const toggle = h("button", { class: "small", "aria-expanded": open.has(job.id) ? "true" : "false", "data-testid": "cron-runs" }, open.has(job.id) ? "Hide runs" : "Recent runs");
    toggle.addEventListener("click", () => {
      if (open.has(job.id)) {
        open.delete(job.id);
        runs.replaceChildren();
        toggle.textContent = "Recent runs";
        toggle.setAttribute("aria-expanded", "false");
      } else {
        open.add(job.id);
        toggle.textContent = "Hide runs";
        toggle.setAttribute("aria-expanded", "true");
        void fetchRuns(job.id).then((fetched) => runs.replaceChildren(...runsPanel(fetched)));
      }
    });
    if (openRuns) runs.replaceChildren(...runsPanel(openRuns));
    const runNow = () =>
      outcome.run(`Asking for a run of ${label}…`, async () => {
        await api(`/api/cron/jobs/${id}/run`, json("POST"));
        return `${label} runs now: it is delivered to ${job.channel} within a second.`;
      });
    const remove = async () => {
      if (!confirm(`Remove the scheduled job "${label}"? It will not run again.`)) return;
      await outcome.run(null, async () => {
        await api(`/api/cron/jobs/${id}`, json("DELETE"));
        open.delete(job.id);
        return `${label} is removed.`;
      });
    };
    return h(
      "article",
      { class: "card item wrap", "data-cron-job": job.id },
      h("header", {}, h("h3", {}, `${label} `, job.name ? h("code", { class: "small" }, job.id) : ""), lastResult(job), job.run_requested ? badge("run asked", "warn") : ""),
      h("p", {}, what(job)),
      line("when", h("strong", { "data-testid": "cron-when" }, scheduleInWords(job.schedule))),
      line("next run", job.next_run ? time(job.next_run) : "not again"),
      line("last run", ...lastRun(job)),
      line("session", h("code", {}, job.session_id), job.agent ? ` · agent ${job.agent}` : ""),
      line("delivered to", deliveredTo(job)),
      h(
        "div",
        { class: "row" },
        h("button", { class: "small primary", "data-testid": "cron-run", onclick: () => void runNow() }, "Run now"),
        toggle,
        h("button", { class: "small danger", "data-testid": "cron-remove", onclick: () => void remove() }, "Remove"),
      ),
      runs,
    );
  };

  // Refreshes may overlap (a slow gateway, a quick hand): one that ends after a newer one has shown stays unseen.
  let asked = 0;
  let shown = 0;
  const refresh = async () => {
    const seq = ++asked;
    let content: Node[];
    try {
      const { jobs } = await api<{ jobs: ScheduledJob[] }>("/api/cron/jobs");
      const runs = await Promise.all(jobs.map((job) => (open.has(job.id) ? fetchRuns(job.id) : undefined)));
      content = jobs.length === 0 ? [h("p", { class: "muted wide" }, "No scheduled job: the assistant adds them with its cron tool.")] : jobs.map((job, i) => card(job, runs[i]));
    } catch (error) {
      content = [errorBox(error)];
    }
    if (seq < shown) return;
    shown = seq;
    list.replaceChildren(...content);
  };
  void refresh();
  const el = h(
    "section",
    { class: "page", "data-testid": "cron-view" },
    h("header", { class: "page-head" }, h("h2", {}, "Scheduled jobs"), h("button", { onclick: () => void refresh() }, "Refresh")),
    h("p", { class: "muted small" }, "Jobs the assistant added with its cron tool, in every session. The plugins' own cron jobs are on the Status page."),
    outcome.el,
    list,
  );
  return { el, dispose() {} };
}
