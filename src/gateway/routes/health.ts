import { errorMessage } from "../../core/errors.ts";
import type { GatewayContext } from "../context.ts";
import type { GatewayElysia } from "../elysia.ts";
import { jsonResponse } from "../errors.ts";
import { doc } from "../openapi/doc.ts";
import { providerReadiness } from "../provider-check.ts";
import { HealthSchema, type Health } from "../schemas.ts";
import type { HealthCheck } from "../types.ts";

function databaseCheck(gw: GatewayContext): HealthCheck {
  try {
    gw.host.db.query("SELECT 1").get();
    return { ok: true };
  } catch (error) {
    return { ok: false, detail: `database unreachable: ${errorMessage(error)}` };
  }
}

function providersCheck(gw: GatewayContext): HealthCheck {
  const { ok, detail } = providerReadiness(gw.host);
  return detail === undefined ? { ok } : { ok, detail };
}

export async function readiness(gw: GatewayContext): Promise<Health> {
  const checks: Record<string, HealthCheck> = { database: databaseCheck(gw), providers: providersCheck(gw) };
  for (const [name, check] of Object.entries(gw.checks)) {
    try {
      checks[name] = await check();
    } catch (error) {
      checks[name] = { ok: false, detail: errorMessage(error) };
    }
  }
  const ok = Object.values(checks).every((check) => check.ok);
  return { status: ok ? "ok" : "unavailable", checks };
}

export function healthRoutes(app: GatewayElysia, gw: GatewayContext): void {
  app.get(
    "/health",
    async () => {
      const health = await readiness(gw);
      return jsonResponse(health, health.status === "ok" ? 200 : 503);
    },
    {
      detail: doc({
        summary: "Readiness: 200 when every check passes, else 503",
        description:
          "Checks: `database`; `providers` (the default provider can answer: a key variable that is not set is " +
          "misconfigured unless a fallback can answer); `plugins` when the gateway hosts the plugin runtime (starting " +
          "counts as ready; a failed runtime start is 503; one plugin in error is reported, not 503); `channels` when " +
          "channels are enabled (a channel process in a crash loop is 503).",
        tags: ["system"],
        auth: false,
        responses: { 200: HealthSchema, 503: { description: "not ready", schema: HealthSchema } },
      }),
    },
  );
}
