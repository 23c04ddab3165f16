import type { AccessEntry } from "../gateway/access-log.ts";
import type { GatewayContext } from "../gateway/context.ts";
import { answerHealth } from "../gateway/readiness.ts";
import { requestIdOf } from "../gateway/request-id.ts";
import type { BeforeApp } from "../gateway/server.ts";

/**
 * While the gateway's app (Elysia, TypeBox, every route group and its schemas) loads after listening, GET and HEAD
 * /health are answered by the /health route's own handler, with what the request pipeline adds to it: the request
 * id, the metrics and the access-log line. A health check with a declared body, and every other request, waits for
 * the app (its pipeline checks the body size). A kept start-up trick: tricks.ts, "health-before-app".
 */
export const healthBeforeApp: BeforeApp = (gw: GatewayContext) => (request, server) => {
  if (request.method !== "GET" && request.method !== "HEAD") return null;
  if (request.headers.has("content-length") || request.headers.has("transfer-encoding")) return null;
  if (new URL(request.url).pathname !== "/health") return null;
  return answer(gw, request, server);
};

async function answer(gw: GatewayContext, request: Request, server: Bun.Server<unknown>): Promise<Response> {
  const start = performance.now();
  const answered = await answerHealth(gw);
  const id = requestIdOf(request);
  answered.headers.set("x-request-id", id);
  const response = request.method === "HEAD" ? new Response(null, answered) : answered;
  const ms = Math.round((performance.now() - start) * 10) / 10;
  const entry: AccessEntry = { method: request.method, path: "/health", status: response.status, id, ms, client: gw.clientAddress(request, server) };
  gw.metrics.request("/health", entry.method, entry.status, entry.ms / 1000);
  gw.accessLog(entry);
  return response;
}
