import { errorMessage } from "../core/errors.ts";
import type { GatewayContext } from "./context.ts";
import type { AccessEntry } from "./access-log.ts";
import { jsonResponse } from "./json-response.ts";
import { providerReadiness } from "./provider-check.ts";
import { requestIdOf } from "./request-id.ts";
import type { Health } from "./schemas.ts";
import type { Storage } from "../storage/types.ts";
import type { HealthCheck } from "./types.ts";

/**
 * What GET /health reports: the workspace database, the default provider's readiness and every check the gateway was
 * given (plugins, channels, PostgreSQL, Redis). No zod, no Elysia: the gateway answers it before its route table exists.
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
export function healthOf(checks: Record<string, HealthCheck>): Health {
  const ok = Object.values(checks).every((check) => check.ok);
  return { status: ok ? "ok" : "unavailable", checks };
}

/** A /health answer timed from `start`: the response, carrying the request's id, and its access-log entry. */
export function answerHealth(request: Request, client: string, start: number, health: Health): { response: Response; entry: AccessEntry } {
  const id = requestIdOf(request);
  const response = healthResponse(health);
  response.headers.set("x-request-id", id);
  const ms = Math.round((performance.now() - start) * 10) / 10;
  return { response, entry: { method: request.method, path: "/health", status: response.status, id, ms, client } };
}

export function databaseCheck(storage: Pick<Storage, "ping">): HealthCheck {
  const ping = storage.ping();
  return ping.ok ? { ok: true } : { ok: false, detail: `database unreachable: ${ping.error}` };
}

export function providersCheck(host: Parameters<typeof providerReadiness>[0]): HealthCheck {
  const { ok, detail } = providerReadiness(host);
  return detail === undefined ? { ok } : { ok, detail };
}

/** The /health response: 200 when every check passes, else 503. */
export function healthResponse(health: Health): Response {
  return jsonResponse(health, health.status === "ok" ? 200 : 503);
}
