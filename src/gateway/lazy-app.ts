import type { AnyElysia } from "elysia";
import { errorMessage, PrxError } from "../core/errors.ts";
import type { GatewayCore } from "./core.ts";
import { errorResponse } from "./errors.ts";
import type { GatewayDeps } from "./types.ts";

/**
 * Every route but the native ones, on Elysia built at the first request that needs it: a gateway that only
 * answers /health and /v1/chat/completions never loads Elysia, its schemas or the OpenAPI machinery (start-up
 * time and idle memory).
 */
export function lazyElysiaApp(
  core: GatewayCore,
  mounts: GatewayDeps["mounts"],
  build: () => Promise<AnyElysia> = () => import("./app.ts").then((m) => m.buildElysiaApp(core, { mounts })),
): (request: Request) => Promise<Response> {
  let app: Promise<AnyElysia> | undefined;
  return async (request) => {
    let ready: AnyElysia;
    try {
      ready = await (app ??= build());
    } catch (error) {
      app = undefined; // the next request tries again
      const message = `gateway routes failed to load: ${errorMessage(error)}`;
      core.context.logger.error(message);
      return core.pipeline.serve(request, new URL(request.url).pathname, () =>
        errorResponse(new PrxError("INTERNAL", message, { hint: "see the gateway log; reinstall prx if it persists" })),
      );
    }
    return ready.handle(request);
  };
}
