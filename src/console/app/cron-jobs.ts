import { api, describe, json } from "./api.ts";
import { h, time } from "./dom.ts";

/** A job the assistant scheduled with the cron tool, as GET /api/cron/jobs lists it. */
interface ScheduledJob {
  id: string;
  name: string | null;
  session_id: string;
  channel: string;
  chat_id: string | null;
  schedule: { kind: string; at?: string; every_ms?: number; expr?: string; tz?: string };
  payload: { kind: string; text?: string; message?: string };
  next_run: string | null;
  last_run: string | null;
  last_error: string | null;
  run_requested: boolean;
}

function when(s: ScheduledJob["schedule"]): string {
  if (s.kind === "at") return `at ${s.at}`;
  if (s.kind === "every") return `every ${Math.round((s.every_ms ?? 0) / 1000)} s`;
  return `cron ${s.expr}${s.tz ? ` (${s.tz})` : ""}`;
}

/** The cron tool's jobs of every session: what, when, where it is delivered; Run now and Remove on each. */
export function cronJobsList(): { el: HTMLElement; refresh(): Promise<void> } {
  const body = h("tbody");
  const note = h("p", { class: "muted" });
  const table = h(
    "table",
    { "data-testid": "cron-jobs" },
    h("thead", {}, h("tr", {}, ...["job", "schedule", "next run", "last run", "delivered to", ""].map((c) => h("th", {}, c)))),
    body,
  );
  const act = async (path: string, method: "POST" | "DELETE") => {
    try {
      await api(path, json(method));
    } catch (error) {
      note.textContent = describe(error).message;
    }
    await refresh();
  };
  const refresh = async (): Promise<void> => {
    try {
      const { jobs } = await api<{ jobs: ScheduledJob[] }>("/api/cron/jobs");
      body.replaceChildren(
        ...jobs.map((j) => {
          const what = j.payload.kind === "systemEvent" ? `remind: ${j.payload.text}` : `ask: ${j.payload.message}`;
          const id = encodeURIComponent(j.id);
          return h(
            "tr",
            { "data-cron-job": j.id },
            h("td", {}, h("strong", {}, j.name ?? j.id), h("div", { class: "small" }, what)),
            h("td", {}, h("code", {}, when(j.schedule))),
            h("td", {}, j.next_run ? time(j.next_run) : "not again", j.run_requested ? h("div", { class: "small muted" }, "run asked") : ""),
            h("td", {}, j.last_run ? time(j.last_run) : "never", j.last_error ? h("div", { class: "small error" }, j.last_error) : ""),
            h("td", { class: "muted small" }, `${j.channel}${j.chat_id ? ` ${j.chat_id}` : ""} · ${j.session_id}`),
            h(
              "td",
              {},
              h("button", { class: "small", "data-testid": "cron-run", onclick: () => void act(`/api/cron/jobs/${id}/run`, "POST") }, "Run now"),
              h("button", { class: "small danger", "data-testid": "cron-remove", onclick: () => void act(`/api/cron/jobs/${id}`, "DELETE") }, "Remove"),
            ),
          );
        }),
      );
      note.textContent = jobs.length === 0 ? "No scheduled job: the assistant adds them with its cron tool." : "";
    } catch (error) {
      note.textContent = describe(error).message;
    }
  };
  return { el: h("div", {}, table, note), refresh };
}
