import { Elysia } from "elysia";
import { accessLog, requestRecorder } from "./middleware/access-log.ts";
import { authOption, bearerAuth } from "./middleware/bearer-auth.ts";
import { bodyLimit } from "./middleware/body-limit.ts";
import { errorResponse } from "./middleware/error-response.ts";
import { rateLimit } from "./middleware/rate-limit.ts";
import { requestId } from "./middleware/request-id.ts";
import { requestState } from "./middleware/state.ts";
import type { MiddlewareDeps } from "./middleware/types.ts";

export interface GatewayElysiaOptions {
  gw: MiddlewareDeps;
  /** Which paths are public and which methods a path answers (read from the routes once they are registered). */
  routes: { isPublic(path: string): boolean; methodsOf(path: string): string[] };
  /** The server the app listens with (null for app.handle): the client address comes from its socket. */
  server: () => Bun.Server<unknown> | null;
}

/**
 * The gateway's Elysia instance before any route: the middleware in the order a request meets them (state, request
 * id, the client's rate limit, bearer auth, the token's rate limit, the declared body size; then the route; then the
 * access log, or the error answer), and the typed route option `auth`. Every handler's context carries the typed
 * per-request state `prx` (request id, client address, credential).
 * Elysia's ahead-of-time handlers (aot, its default) are compiled on each route's first request.
 */
export function gatewayElysia({ gw, routes, server }: GatewayElysiaOptions) {
  const clientAddress = (request: Request) => gw.clientAddress(request, server());
  const record = requestRecorder({ metrics: gw.metrics, log: gw.accessLog });
  return new Elysia({ name: "prx-gateway" })
    .use(authOption)
    .use(requestState({ clientAddress }))
    .use(requestId())
    .use(rateLimit({ scope: "client", limiter: gw.clientLimiter, exempt: ["/health"] }))
    .use(bearerAuth({ auth: gw.auth, isPublic: (path) => routes.isPublic(path) }))
    .use(rateLimit({ scope: "token", limiter: gw.tokenLimiter }))
    .use(bodyLimit({ maxBytes: () => gw.config.max_body_bytes }))
    .use(accessLog(record))
    .use(errorResponse({ methodsOf: (path) => routes.methodsOf(path), clientAddress, logger: gw.logger, record }));
}

/** What route groups register their routes on. */
export type GatewayElysia = ReturnType<typeof gatewayElysia>;
