import type { GatewayContext } from "../context.ts";
import type { GatewayElysia } from "../elysia.ts";
import { jsonResponse } from "../errors.ts";
import { doc } from "../openapi/doc.ts";
import { StatusSchema, type Status } from "../schemas.ts";

/** Version, uptime, workspace, provider, memory backend and counts: GET /api/status and the status stream. */
export async function gatewayStatus(gw: GatewayContext): Promise<Status> {
  const host = gw.host;
  const choice = host.resolveModelChoice({});
  const sessions = await host.sessions.count();
  const spans = host.tracer?.enabled ? host.tracer.stats() : null;
  return {
    version: gw.version,
    uptime_s: Math.max(0, Math.round((gw.now() - gw.startedAt) / 100) / 10),
    workspace: host.workspace.root,
    provider: choice.provider,
    model: choice.model,
    memory_backend: host.memory.name,
    counts: { sessions, memories: await host.memory.count(), tools: host.tools.specs().length },
    gateway: { require_pairing: gw.auth.required, in_flight_turns: gw.turns.inFlight },
    ...(spans
      ? { telemetry: { exported: spans.exported, dropped_queue_full: spans.droppedQueueFull, dropped_export_failed: spans.droppedExportFailed, queued: spans.queued } }
      : {}),
  };
}

export function statusRoutes(app: GatewayElysia, gw: GatewayContext): void {
  app.get("/api/status", async () => jsonResponse(await gatewayStatus(gw)), {
    detail: doc({
      summary: "Version, uptime, workspace, provider, memory backend and counts",
      tags: ["system"],
      responses: { 200: StatusSchema },
    }),
  });
}
