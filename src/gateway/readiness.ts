import { errorMessage } from "../core/errors.ts";
import { waitAtMost } from "../core/supervise/grace.ts";
import type { GatewayContext } from "./context.ts";
import { HEALTH_CHECK_TIMEOUT_MS } from "./limits.ts";
import { jsonResponse } from "./json-response.ts";
import { providerReadiness } from "./provider-check.ts";
import type { Health } from "./schemas.ts";
import type { Storage } from "../storage/types.ts";
import type { HealthCheck } from "./types.ts";

/**
 * What GET /health reports: the workspace database, the default provider's readiness and every check the gateway was
 * given (plugins, channels, PostgreSQL, Redis). The checks run together, each failing after HEALTH_CHECK_TIMEOUT_MS,
 * so /health answers within that even while a server it checks does not answer at all.
 */
export async function readiness(gw: GatewayContext): Promise<Health> {
  const checks: Record<string, HealthCheck> = { database: databaseCheck(gw.host.storage), providers: providersCheck(gw.host) };
  const given = Object.entries(gw.checks);
  const results = await Promise.all(given.map(([, check]) => boundedCheck(check, HEALTH_CHECK_TIMEOUT_MS)));
  given.forEach(([name], i) => (checks[name] = results[i]!));
  return healthOf(checks);
}

async function boundedCheck(check: () => HealthCheck | Promise<HealthCheck>, timeoutMs: number): Promise<HealthCheck> {
  let result: HealthCheck | undefined;
  try {
    const running = Promise.resolve().then(check).then((value) => void (result = value));
    if (await waitAtMost(running, timeoutMs)) return result!;
    running.catch(() => undefined); // already reported as not answering in time
    return { ok: false, detail: `no answer within ${timeoutMs} ms` };
  } catch (error) {
    return { ok: false, detail: errorMessage(error) };
  }
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
