import { z } from "zod";
import type { PluginServices } from "../../plugins/runtime/index.ts";
import type { GatewayContext } from "../context.ts";
import type { GatewayElysia } from "../elysia.ts";
import { jsonResponse } from "../errors.ts";
import { doc } from "../openapi/doc.ts";

/** What the plugin runtime's cron scheduler reports per job (plugins/cron/types.ts CronJobStatus). */
const CronJobSchema = z.object({
  id: z.string().describe("<plugin>/<capability>"),
  schedule: z.string(),
  nextDue: z.string().nullable().describe("the next slot this gateway will fire"),
  lastSlot: z.string().describe("the last slot claimed (by any process of the workspace)"),
  running: z.boolean(),
  fired: z.number().int(),
  ok: z.number().int(),
  errors: z.number().int(),
  skipped: z.number().int(),
  lastRun: z.object({ slot: z.string().nullable(), ok: z.boolean(), at: z.string() }).nullable(),
  lastError: z.object({ message: z.string(), at: z.string() }).nullable(),
});
const CronListSchema = z.object({ jobs: z.array(CronJobSchema) }).describe("cron jobs with their last and next fire");

const EventTotalsSchema = z.object({
  published: z.number().int(),
  rejected: z.number().int(),
  delivered: z.number().int(),
  dropped: z.number().int().describe("events dropped because a subscriber's queue was full"),
  subscriptions: z.number().int(),
  listeners: z.number().int(),
});
const EventStatsSchema = EventTotalsSchema
  .extend({
    subscriptions: z.array(
      z.object({ id: z.number(), name: z.string(), pattern: z.string(), queued: z.number(), delivered: z.number(), dropped: z.number(), closed: z.boolean() }),
    ),
    listeners: z.array(z.object({ id: z.number(), name: z.string(), pattern: z.string(), calls: z.number(), errors: z.number() })),
  })
  .describe("event bus counters, per subscription and listener");
export type EventTotals = z.infer<typeof EventTotalsSchema>;

function eventStats(services: PluginServices) {
  return services.bus?.stats() ?? { published: 0, rejected: 0, delivered: 0, dropped: 0, subscriptions: [], listeners: [] };
}

/** The bus counters without the per-subscriber lists (what the live status stream carries). */
export function eventTotals(services: PluginServices): EventTotals {
  const stats = eventStats(services);
  return { ...stats, subscriptions: stats.subscriptions.length, listeners: stats.listeners.length };
}

const tags = ["plugins"];

/** GET /api/cron and GET /api/events: the plugin runtime's scheduler and event bus. */
export function pluginRuntimeRoutes(app: GatewayElysia, services: () => Promise<PluginServices>): void {
  app.get("/api/cron", async () => jsonResponse({ jobs: (await services()).cron.status() }), {
    detail: doc({ summary: "Cron jobs of the plugins: schedule, last and next fire, counters, last error", tags, responses: { 200: CronListSchema } }),
  });
  app.get("/api/events", async () => jsonResponse(eventStats(await services())), {
    detail: doc({ summary: "Event bus counters: published, rejected, delivered, dropped, per subscription", tags, responses: { 200: EventStatsSchema } }),
  });
}

/**
 * The plugin runtime's sections of the live status stream. `ready()` says whether the plugins have loaded: the stream
 * never makes them load (a starting gateway reports "starting").
 */
export function pluginLiveSections(
  gw: GatewayContext,
  ready: () => PluginServices | null,
  list: (services: PluginServices) => Promise<unknown>,
  state: () => string,
): void {
  const starting = () => ({ state: state() });
  gw.live.set("plugins", () => {
    const services = ready();
    return services ? list(services) : starting();
  });
  gw.live.set("cron", () => {
    const services = ready();
    return services ? { jobs: services.cron.status() } : starting();
  });
  gw.live.set("events", () => {
    const services = ready();
    return services ? eventTotals(services) : starting();
  });
}
