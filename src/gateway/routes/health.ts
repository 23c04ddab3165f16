import type { GatewayContext } from "../context.ts";
import type { GatewayElysia } from "../elysia.ts";
import { doc } from "../openapi/doc.ts";
import { answerHealth } from "../readiness.ts";
import { HealthSchema } from "../schemas.ts";

export function healthRoutes(app: GatewayElysia, gw: GatewayContext): void {
  app.get(
    "/health",
    () => answerHealth(gw),
    {
      auth: false,
      detail: doc({
        summary: "Readiness: 200 when every check passes, else 503",
        description:
          "Checks: `database`; `providers` (the default provider can answer: a key variable that is not set is " +
          "misconfigured unless a fallback can answer); `plugins` when the gateway hosts the plugin runtime (starting " +
          "counts as ready, and so does \"at rest\", a runtime with nothing to load that starts on first use; a failed " +
          "runtime start is 503; one plugin in error is reported, not 503); `channels` when " +
          "channels are enabled (a channel process in a crash loop is 503).",
        tags: ["system"],
        responses: { 200: HealthSchema, 503: { description: "not ready", schema: HealthSchema } },
      }),
    },
  );
}
