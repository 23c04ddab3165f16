import { z } from "zod";
import type { GatewayContext } from "../context.ts";
import type { GatewayElysia } from "../elysia.ts";
import { doc } from "../openapi/doc.ts";

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export function metricsRoutes(app: GatewayElysia, gw: GatewayContext): void {
  app.get(
    "/metrics",
    () => {
      const tools: Record<string, number> = {};
      for (const [name, counts] of Object.entries(gw.host.tools.counts())) tools[name] = counts.calls;
      return new Response(gw.metrics.render(tools, gw.host.tracer?.enabled ? gw.host.tracer.stats() : undefined), { headers: { "content-type": PROMETHEUS_CONTENT_TYPE } });
    },
    {
      detail: doc({
        summary: "Prometheus metrics",
        tags: ["system"],
        responses: {
          200: {
            description: "Prometheus text exposition format 0.0.4",
            schema: z.string(),
            contentType: "text/plain",
          },
        },
      }),
    },
  );
}
