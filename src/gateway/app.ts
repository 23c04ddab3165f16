import { Elysia, type AnyElysia } from "elysia";
import { keepRawBody } from "./body.ts";
import { buildContext, type GatewayContext } from "./context.ts";
import { createPipeline } from "./pipeline.ts";
import { healthRoutes } from "./routes/health.ts";
import { metricsRoutes } from "./routes/metrics.ts";
import { openaiRoutes } from "./routes/openai.ts";
import { pairRoutes } from "./routes/pair.ts";
import { sessionRoutes } from "./routes/sessions.ts";
import { statusRoutes } from "./routes/status.ts";
import { swaggerRoutes } from "./routes/swagger.ts";
import { webhookRoutes } from "./routes/webhook.ts";
import type { GatewayDeps } from "./types.ts";

export interface GatewayApp {
  app: AnyElysia;
  context: GatewayContext;
}

/**
 * The gateway as an Elysia app that is not listening yet: `app.handle(request)` serves one request (tests),
 * `startGateway` puts it behind Bun.serve. Every route, mounted ones included, goes through the pipeline.
 */
export function buildGateway(deps: GatewayDeps): GatewayApp {
  const gw = buildContext(deps);
  const pipeline = createPipeline(gw);
  // aot: false — Elysia's code generation costs ~8-10 ms on the first request of a compiled binary (the
  // cold-start target is 60 ms to the first /health) and bought little per request here (measured).
  const app: AnyElysia = new Elysia({ name: "prx-gateway", aot: false })
    .onRequest(({ request, set }) => pipeline.before(request, set.headers as Record<string, string>))
    // Routes read their own bodies with readJsonBody (415/413/400 handled there): Elysia must not consume them.
    .onParse({ as: "global" }, keepRawBody)
    .onAfterHandle({ as: "global" }, ({ request }) => pipeline.handled(request))
    .onError({ as: "global" }, ({ request, code, error }) => pipeline.onError(request, String(code), error))
    .onAfterResponse({ as: "global" }, ({ request, route, response, set }) =>
      pipeline.after(request, route, response, set.status),
    );
  for (const register of [
    healthRoutes,
    metricsRoutes,
    pairRoutes,
    statusRoutes,
    sessionRoutes,
    webhookRoutes,
    openaiRoutes,
    swaggerRoutes,
  ]) {
    register(app, gw);
  }
  for (const mount of deps.mounts ?? []) mount(app);
  return { app, context: gw };
}

export function createGatewayApp(deps: GatewayDeps): AnyElysia {
  return buildGateway(deps).app;
}
