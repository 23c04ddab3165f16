import { z } from "zod";
import { PrxError } from "../../core/errors.ts";
import type { CronJobStore, CronStateStore } from "../../storage/types.ts";
import { CRON_TOOL_RUNS_KEPT } from "../../tools/builtins/cron-limits.ts";
import { removeCronJob } from "../../tools/builtins/cron-store.ts";
import { viewJobs } from "../../tools/builtins/cron-view.ts";
import type { GatewayElysia } from "../elysia.ts";
import { jsonResponse } from "../errors.ts";
import { doc } from "../openapi/doc.ts";
import type { GatewayMount } from "../types.ts";

const CronJobSchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  session_id: z.string(),
  channel: z.string().describe("the channel the job was created from; it is delivered there"),
  chat_id: z.string().nullable(),
  schedule: z.record(z.string(), z.unknown()).describe('{kind: "at", at} | {kind: "every", every_ms, anchor_ms} | {kind: "cron", expr, tz?}'),
  payload: z.record(z.string(), z.unknown()).describe('{kind: "systemEvent", text} | {kind: "agentTurn", message}'),
  created_at: z.string(),
  next_run: z.string().nullable(),
  last_run: z.string().nullable(),
  last_error: z.string().nullable(),
  run_requested: z.boolean(),
});
const CronJobListSchema = z.object({ jobs: z.array(CronJobSchema) });
const CronRunsSchema = z.object({
  id: z.string(),
  runs: z.array(z.object({ at: z.string(), slot: z.string().nullable(), ok: z.boolean(), detail: z.string() })),
});
const DoneSchema = z.object({ id: z.string(), done: z.string() });

export interface CronJobsApi {
  jobs: () => CronJobStore;
  state: () => CronStateStore;
}

async function existing(api: CronJobsApi, id: string): Promise<void> {
  if (!(await api.jobs().get(id))) throw new PrxError("NOT_FOUND", `no cron job "${id}"`, { status: 404, hint: "GET /api/cron/jobs lists them" });
}

/** `/api/cron/jobs`: the jobs the assistant scheduled with the cron tool (every session): list, run now, runs, remove. */
export function cronJobRoutes(api: CronJobsApi): GatewayMount {
  return (app: GatewayElysia) =>
    app
      .get("/api/cron/jobs", async () => jsonResponse({ jobs: await viewJobs(await api.jobs().list(), api.state()) }), {
        detail: doc({ summary: "The cron tool's jobs of every session, oldest first, with their next run", tags: ["cron"], responses: { 200: CronJobListSchema } }),
      })
      .post(
        "/api/cron/jobs/:id/run",
        async ({ params }) => {
          await existing(api, params.id);
          await api.jobs().requestRun(params.id, Date.now());
          return jsonResponse({ id: params.id, done: "queued" });
        },
        {
          detail: doc({
            summary: "Run a job now, outside its schedule: the process serving its channel delivers it within a second",
            tags: ["cron"],
            responses: { 200: DoneSchema },
            errors: [404],
          }),
        },
      )
      .get(
        "/api/cron/jobs/:id/runs",
        async ({ params }) => {
          await existing(api, params.id);
          const runs = await api.jobs().runs(params.id, CRON_TOOL_RUNS_KEPT);
          return jsonResponse({
            id: params.id,
            runs: runs.map((r) => ({
              at: new Date(Number(r.at)).toISOString(),
              slot: r.slot === null ? null : new Date(Number(r.slot)).toISOString(),
              ok: r.ok,
              detail: r.detail,
            })),
          });
        },
        { detail: doc({ summary: "A job's last runs, newest first", tags: ["cron"], responses: { 200: CronRunsSchema }, errors: [404] }) },
      )
      .delete(
        "/api/cron/jobs/:id",
        async ({ params }) => {
          await existing(api, params.id);
          await removeCronJob(api.jobs(), api.state(), params.id);
          return jsonResponse({ id: params.id, done: "removed" });
        },
        { detail: doc({ summary: "Remove a job: it does not fire again", tags: ["cron"], responses: { 200: DoneSchema }, errors: [404] }) },
      );
}
