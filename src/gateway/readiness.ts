import { errorMessage } from "../core/errors.ts";
import type { GatewayContext } from "./context.ts";
import { jsonResponse } from "./json-response.ts";
import { providerReadiness } from "./provider-check.ts";
import type { Health } from "./schemas.ts";
import type { Storage } from "../storage/types.ts";
import type { HealthCheck } from "./types.ts";

/**
 * What GET /health reports: the workspace database, the default provider's readiness and every check the gateway was
 * given (plugins, channels, PostgreSQL, Redis).
 */
export async function readiness(gw: GatewayContext): Promise<Health> {
  const checks: Record<string, HealthCheck> = { database: databaseCheck(gw.host.storage), providers: providersCheck(gw.host) };
  for (const [name, check] of Object.entries(gw.checks)) {
    try {
      checks[name] = await check();
    } catch (error) {
      checks[name] = { ok: false, detail: errorMessage(error) };
    }
  }
  return healthOf(checks);
}

/** Ready ("ok") when every check passes. */
function healthOf(checks: Record<string, HealthCheck>): Health {
  const ok = Object.values(checks).every((check) => check.ok);
  return { status: ok ? "ok" : "unavailable", checks };
}

export function databaseCheck(storage: Pick<Storage, "ping">): HealthCheck {
  const ping = storage.ping();
  return ping.ok ? { ok: true } : { ok: false, detail: `database unreachable: ${ping.error}` };
}

function providersCheck(host: Parameters<typeof providerReadiness>[0]): HealthCheck {
  const { ok, detail } = providerReadiness(host);
  return detail === undefined ? { ok } : { ok, detail };
}

/** The /health response: 200 when every check passes, else 503. */
function healthResponse(health: Health): Response {
  return jsonResponse(health, health.status === "ok" ? 200 : 503);
}

/** The answer to GET /health: the handler of the route, and of a health check that comes before the app is built. */
export async function answerHealth(gw: GatewayContext): Promise<Response> {
  return healthResponse(await readiness(gw));
}
