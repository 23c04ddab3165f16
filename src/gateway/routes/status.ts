import type { AnyElysia } from "elysia";
import type { GatewayContext } from "../context.ts";
import { jsonResponse } from "../errors.ts";
import { doc } from "../openapi/doc.ts";
import { StatusSchema, type Status } from "../schemas.ts";

export function statusRoutes(app: AnyElysia, gw: GatewayContext): void {
  app.get(
    "/api/status",
    async () => {
      const host = gw.host;
      const choice = host.resolveModelChoice({});
      const sessions = host.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM sessions").get()?.n ?? 0;
      const body: Status = {
        version: gw.version,
        uptime_s: Math.max(0, Math.round((gw.now() - gw.startedAt) / 100) / 10),
        workspace: host.workspace.root,
        provider: choice.provider,
        model: choice.model,
        memory_backend: host.memory.name,
        counts: { sessions, memories: await host.memory.count(), tools: host.tools.specs().length },
        gateway: { require_pairing: gw.auth.required, in_flight_turns: gw.turns.inFlight },
      };
      return jsonResponse(body);
    },
    {
      detail: doc({
        summary: "Version, uptime, workspace, provider, memory backend and counts",
        tags: ["system"],
        responses: { 200: StatusSchema },
      }),
    },
  );
}
