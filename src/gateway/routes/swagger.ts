import type { GatewayContext } from "../context.ts";
import type { GatewayElysia } from "../elysia.ts";
import { doc, docsReady } from "../openapi/doc.ts";
import type { SwaggerDocs } from "../openapi/swagger.ts";

const tags = ["docs"];

/**
 * /swagger (UI), /swagger/json (the OpenAPI document, generated from this app's route table) and /swagger/assets/*
 * (UI files). The module and the document are built on the first request that needs them.
 */
export function swaggerRoutes(app: GatewayElysia, gw: GatewayContext): void {
  let docs: Promise<SwaggerDocs> | undefined;
  const load = () =>
    (docs ??= docsReady()
      .then(() => import("../openapi/swagger.ts"))
      .then((m) => m.createSwaggerDocs(() => app.routes, gw.version)));
  app.get("/swagger", async () => (await load()).page(), {
    detail: doc({ summary: "The API reference (Swagger UI)", tags, auth: false, responses: { 200: { description: "HTML page", contentType: "text/html" } } }),
  });
  app.get("/swagger/json", async () => (await load()).document(), {
    detail: doc({ summary: "This OpenAPI document", tags, auth: false, responses: { 200: { description: "OpenAPI 3.0 document" } } }),
  });
  app.get("/swagger/assets/:name", async ({ params }) => (await load()).asset(params.name), {
    detail: doc({ summary: "A file of the Swagger UI", tags, auth: false, responses: { 200: { description: "JavaScript or CSS" } }, errors: [404] }),
  });
}
