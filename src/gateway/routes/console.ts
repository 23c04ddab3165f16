import type { ConsoleAssets } from "../../console/serve.ts";
import type { GatewayContext } from "../context.ts";
import type { GatewayElysia } from "../elysia.ts";
import { doc } from "../openapi/doc.ts";

const tags = ["console"];

/**
 * The web console: its page at "/" and its bundled assets under /console/, public (the page asks for a token before
 * it calls any /api route). The files load on the first request for them, never at start.
 */
export function consoleRoutes(app: GatewayElysia, _gw: GatewayContext): void {
  let assets: Promise<ConsoleAssets> | undefined;
  const load = () => (assets ??= import("../../console/serve.ts").then((m) => m.consoleAssets()).catch((error: unknown) => {
    assets = undefined; // the next request tries again
    throw error;
  }));
  app.get("/", async () => (await load()).page(), {
    auth: false,
    detail: doc({ summary: "The web console", tags, responses: { 200: { description: "HTML page", contentType: "text/html" } } }),
  });
  app.get("/console/:name", async ({ params }) => (await load()).asset(params.name), {
    auth: false,
    detail: doc({ summary: "A file of the web console (named by content hash)", tags, responses: { 200: { description: "JavaScript or CSS" } }, errors: [404] }),
  });
}
