import type { AnyElysia } from "elysia";
import type { GatewayContext } from "../context.ts";
import { docsReady } from "../openapi/doc.ts";
import type { SwaggerDocs } from "../openapi/swagger.ts";

/** /swagger (UI), /swagger/json (OpenAPI document), /swagger/assets/* (UI files). Loaded on first request. */
export function swaggerRoutes(app: AnyElysia, gw: GatewayContext): void {
  let docs: Promise<SwaggerDocs> | undefined;
  const load = () =>
    (docs ??= docsReady()
      .then(() => import("../openapi/swagger.ts"))
      .then((m) => m.createSwaggerDocs(app, gw.version)));
  const hidden = { detail: { hide: true } };
  app.get("/swagger", async () => (await load()).page(), hidden);
  app.get("/swagger/json", async ({ request }) => (await load()).document(request), hidden);
  app.get("/swagger/assets/:name", async ({ params }) => (await load()).asset(params.name), hidden);
}
