import { buildContext, type GatewayContext } from "./context.ts";
import { createPipeline } from "./pipeline.ts";
import { healthHandler } from "./routes/health.ts";
import { chatCompletionsHandler } from "./routes/openai.ts";
import type { GatewayDeps } from "./types.ts";

/** Handlers Bun.serve can route natively, by path then method: each runs the whole pipeline itself. */
export type NativeRoutes = Record<string, Record<string, (request: Request) => Promise<Response>>>;

export type Pipeline = ReturnType<typeof createPipeline>;

/** What every request needs, without Elysia: the context, the pipeline and the hottest routes. */
export interface GatewayCore {
  context: GatewayContext;
  pipeline: Pipeline;
  /**
   * The hottest routes without Elysia's per-request dispatch (measured ~0.1-0.2 ms per turn at low load on the
   * reference machine): the same handlers and pipeline as their Elysia routes, which stay registered for the
   * OpenAPI document and for app.handle. A gateway that only answers these never loads Elysia (lazy-app.ts).
   */
  native: NativeRoutes;
}

export function buildGatewayCore(deps: GatewayDeps): GatewayCore {
  const context = buildContext(deps);
  const pipeline = createPipeline(context);
  const health = healthHandler(context);
  const chat = chatCompletionsHandler(context);
  const native: NativeRoutes = {
    "/health": { GET: (request) => pipeline.serve(request, "/health", health) },
    "/v1/chat/completions": { POST: (request) => pipeline.serve(request, "/v1/chat/completions", chat) },
  };
  return { context, pipeline, native };
}
