import type { AnyElysia } from "elysia";
import { swagger } from "@elysiajs/swagger";
// The UI assets come from node_modules and are embedded in the compiled binary, so /swagger renders offline.
import bundlePath from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import cssPath from "swagger-ui-dist/swagger-ui.css" with { type: "file" };
import { PrxError } from "../../core/errors.ts";

export const SWAGGER_ASSET_PREFIX = "/swagger/assets/";
/** The version in the CDN URL @elysiajs/swagger writes; it is rewritten to SWAGGER_ASSET_PREFIX. */
const CDN_VERSION = "local";
const CDN_PREFIX = `https://unpkg.com/swagger-ui-dist@${CDN_VERSION}/`;

const ASSETS: Record<string, { path: string; type: string }> = {
  "swagger-ui-bundle.js": { path: bundlePath, type: "text/javascript; charset=utf-8" },
  "swagger-ui.css": { path: cssPath, type: "text/css; charset=utf-8" },
};

interface RouteSource {
  getGlobalRoutes(): unknown[];
  getGlobalDefinitions(): unknown;
}

export interface SwaggerDocs {
  page(): Response;
  document(request: Request): Promise<Response>;
  asset(name: string): Response;
}

/**
 * @elysiajs/swagger, built on first use. Its document is generated from the gateway app's routes (their
 * `detail` carries the zod-derived schemas); its page is the swagger-ui one with the JS pointed at our assets.
 */
export async function createSwaggerDocs(app: AnyElysia, version: string): Promise<SwaggerDocs> {
  const plugin = swagger({
    provider: "swagger-ui",
    version: CDN_VERSION,
    theme: `${SWAGGER_ASSET_PREFIX}swagger-ui.css`,
    autoDarkMode: false,
    documentation: {
      info: { title: "prx gateway", description: "prx agent host HTTP API", version },
      components: {
        securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "token from POST /pair" } },
      },
    },
  });
  // The plugin documents whatever instance it is mounted in; point it at the gateway app without mounting it.
  const source = app as unknown as RouteSource;
  const target = plugin as unknown as RouteSource;
  target.getGlobalRoutes = () => source.getGlobalRoutes();
  target.getGlobalDefinitions = () => source.getGlobalDefinitions();

  const html = await (await plugin.handle(new Request("http://localhost/swagger"))).text();
  if (!html.includes(CDN_PREFIX)) {
    throw new PrxError(
      "INTERNAL",
      "@elysiajs/swagger page no longer references the expected CDN URL; cannot serve it offline",
    );
  }
  const page = html.replaceAll(CDN_PREFIX, SWAGGER_ASSET_PREFIX);
  const files = new Map(
    Object.entries(ASSETS).map(([name, asset]) => [name, { ...asset, file: Bun.file(asset.path) }]),
  );

  return {
    page: () => new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } }),
    document: (request) => plugin.handle(new Request(new URL("/swagger/json", request.url).href)),
    asset(name) {
      const asset = files.get(name);
      if (!asset) throw new PrxError("NOT_FOUND", `no swagger asset "${name}"`);
      return new Response(asset.file, {
        headers: { "content-type": asset.type, "cache-control": "public, max-age=86400" },
      });
    },
  };
}
