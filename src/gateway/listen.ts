import { createBunRouteHandler } from "elysia/adapter/bun/compose";
import type { GatewayElysia } from "./elysia.ts";
import type { ServeHandlers } from "./on-demand.ts";

type RouteHandler = (request: Request) => unknown;
/** Methods Bun.serve routes natively; every other route (ALL, wildcards) goes through Elysia's own router. */
const NATIVE_METHODS = new Set(["GET", "HEAD", "OPTIONS", "DELETE", "PATCH", "POST", "PUT"]);

/**
 * Every route of the app as a Bun.serve native route: Bun matches the path and method, then Elysia's handler for
 * that route runs (composed on the route's first request, with the request pipeline's hooks). What Elysia's own
 * `listen` does, without compiling every route and the general handler twice at start (~3 ms of cold start).
 */
export function nativeRoutes(app: GatewayElysia): Record<string, Record<string, RouteHandler>> {
  const routes: Record<string, Record<string, RouteHandler>> = {};
  for (const route of app.routes) {
    if (!NATIVE_METHODS.has(route.method) || route.path.includes("*")) continue;
    let compiled: RouteHandler | undefined;
    const handler: RouteHandler = (request) =>
      (compiled ??= createBunRouteHandler(app as never, route as never) as RouteHandler)(request);
    const path = encodeURI(route.path);
    (routes[path] ??= {})[route.method] ??= handler;
  }
  return routes;
}

/** The app as Bun.serve's handlers: native routes first, Elysia's router (404s, 405s, ALL and wildcard routes) for the rest. */
export function appHandlers(app: GatewayElysia): ServeHandlers {
  return { routes: nativeRoutes(app), fetch: (request) => app.fetch(request) };
}
