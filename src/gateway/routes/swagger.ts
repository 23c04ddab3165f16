import type { GatewayContext } from "../context.ts";
import type { GatewayElysia } from "../elysia.ts";
import { apiReference } from "../openapi/reference.ts";

/** /swagger (the API reference), /swagger/json (its OpenAPI document, from this app's route table) and its bundle. */
export function swaggerRoutes(app: GatewayElysia, gw: GatewayContext): void {
  app.use(apiReference({ version: gw.version, routes: () => app.routes, beforeDocument: gw.beforeDocument }));
}
