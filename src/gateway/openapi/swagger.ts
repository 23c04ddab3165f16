// The UI assets come from node_modules and are embedded in the compiled binary, so /swagger renders offline.
import bundlePath from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import cssPath from "swagger-ui-dist/swagger-ui.css" with { type: "file" };
import { PrxError } from "../../core/errors.ts";
import { openApiDocument, type DocumentedRoute } from "./document.ts";

export const SWAGGER_ASSET_PREFIX = "/swagger/assets/";
/** Where the page finds the document: an absolute path, so /swagger and /swagger/ both load it. */
export const SWAGGER_DOCUMENT_PATH = "/swagger/json";

const ASSETS: Record<string, { path: string; type: string }> = {
  "swagger-ui-bundle.js": { path: bundlePath, type: "text/javascript; charset=utf-8" },
  "swagger-ui.css": { path: cssPath, type: "text/css; charset=utf-8" },
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>prx gateway API</title>
<link rel="stylesheet" href="${SWAGGER_ASSET_PREFIX}swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${SWAGGER_ASSET_PREFIX}swagger-ui-bundle.js" crossorigin></script>
<script>window.ui = SwaggerUIBundle({ url: "${SWAGGER_DOCUMENT_PATH}", dom_id: "#swagger-ui", persistAuthorization: true });</script>
</body>
</html>
`;

export interface SwaggerDocs {
  page(): Response;
  document(): Response;
  asset(name: string): Response;
}

/** The Swagger UI page, its assets, and the OpenAPI document of `routes` (generated once, on first request). */
export function createSwaggerDocs(routes: () => readonly DocumentedRoute[], version: string): SwaggerDocs {
  let document: string | undefined;
  const files = new Map(Object.entries(ASSETS).map(([name, asset]) => [name, { ...asset, file: Bun.file(asset.path) }]));
  return {
    page: () => new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }),
    document() {
      document ??= JSON.stringify(
        openApiDocument(routes(), { title: "prx gateway", description: "prx agent host HTTP API", version }),
      );
      return new Response(document, { headers: { "content-type": "application/json; charset=utf-8" } });
    },
    asset(name) {
      const asset = files.get(name);
      if (!asset) throw new PrxError("NOT_FOUND", `no swagger asset "${name}"`, { hint: `the UI files are ${[...files.keys()].join(", ")}` });
      return new Response(asset.file, {
        headers: { "content-type": asset.type, "cache-control": "public, max-age=86400" },
      });
    },
  };
}
