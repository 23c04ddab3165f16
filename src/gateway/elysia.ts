import { Elysia } from "elysia";
import { requestPipeline, type PipelineOptions } from "./pipeline.ts";

/**
 * The gateway's Elysia instance before any route: the request pipeline is used as a plugin, so every handler's
 * context carries the typed per-request state `prx` (request id, client address, credential).
 * Elysia's ahead-of-time handlers (aot, its default) are compiled on each route's first request.
 */
export function gatewayElysia(options: PipelineOptions) {
  return new Elysia({ name: "prx-gateway" }).use(requestPipeline(options));
}

/** What route groups register their routes on. */
export type GatewayElysia = ReturnType<typeof gatewayElysia>;
