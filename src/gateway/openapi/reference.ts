import { swagger } from "@elysiajs/swagger";
import { Elysia } from "elysia";
// The package's exports map does not list its browser bundle, so it is named by path (untyped: a `type: "file"`
// import is the file's path, and the compiled binary embeds the file, so the reference renders with no internet).
// @ts-expect-error TS7016: the bundle has no declaration file
import scalarBundlePath from "../../../node_modules/@scalar/api-reference/dist/browser/standalone.js" with { type: "file" };
import { PrxError } from "../../core/errors.ts";
import { authOption, PUBLIC_ROUTE } from "../middleware/bearer-auth.ts";
import { doc } from "./doc.ts";
import { openApiPath } from "./path.ts";

export const REFERENCE_PATH = "/swagger";
/** Where the page finds the document: an absolute path, so /swagger and /swagger/ both load it. */
export const REFERENCE_DOCUMENT_PATH = "/swagger/json";
export const REFERENCE_ASSET_PREFIX = "/swagger/assets/";
const BUNDLE_NAME = "scalar.js";

/** The page runs only the bundle served beside it and talks only to this gateway (no fonts, telemetry or AI agent). */
const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
};

const SCALAR_CONFIG = {
  spec: { url: REFERENCE_DOCUMENT_PATH },
  // a token typed into the reference lives as long as the page
  persistAuth: false,
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  showDeveloperTools: "never",
  // every operation listed in the sidebar at once
  defaultOpenAllTags: true,
};

/** A route as Elysia lists it in `app.routes`. */
interface ListedRoute {
  method: string;
  path: string;
  hooks?: { detail?: unknown } | undefined;
}

type Operation = Record<string, unknown>;

const WILDCARD_METHODS = ["get", "post", "put", "delete", "patch"];

/**
 * What @elysiajs/swagger leaves out and the document still lists: its own page and document (hidden routes), and
 * routes whose path ends in `*` (the plugin drops them), documented from their own detail.
 */
function extraPaths(routes: readonly ListedRoute[]): Record<string, Record<string, Operation>> {
  const paths: Record<string, Record<string, Operation>> = {
    [REFERENCE_PATH]: {
      get: { summary: "The API reference", tags: ["docs"], responses: { 200: { description: "HTML page", content: { "text/html": {} } } } },
    },
    [REFERENCE_DOCUMENT_PATH]: {
      get: { summary: "This OpenAPI document", tags: ["docs"], responses: { 200: { description: "OpenAPI 3.0 document" } } },
    },
  };
  for (const route of routes) {
    if (!route.path.includes("*")) continue;
    const path = openApiPath(route.path);
    const names = route.path.split("/").flatMap((part) => (part.startsWith(":") ? [part.slice(1)] : part === "*" ? ["path"] : []));
    const parameters = names.map((name) => ({ name, in: "path", required: true, schema: { type: "string" } }));
    const methods = route.method === "ALL" ? WILDCARD_METHODS : [route.method.toLowerCase()];
    for (const method of methods) (paths[path] ??= {})[method] = { ...(route.hooks?.detail as Operation), parameters };
  }
  return paths;
}

/** Every tag the routes use, in the order they first appear: the reference groups operations by them. */
function tagsOf(routes: readonly ListedRoute[]): Array<{ name: string }> {
  const names = new Set<string>();
  for (const route of routes) for (const tag of ((route.hooks?.detail as { tags?: string[] } | undefined)?.tags ?? [])) names.add(tag);
  return [...names].map((name) => ({ name }));
}

export interface ApiReferenceOptions {
  version: string;
  /** The app's routes (read when the document is built, so mounted routes are in it). */
  routes(): readonly ListedRoute[];
  /** Loaders the document waits for (route docs whose schemas live in a module loaded on first use). */
  beforeDocument: ReadonlyArray<() => Promise<unknown>>;
}

/**
 * The API reference through @elysiajs/swagger: the Scalar page at /swagger (its bundle served from prx itself, with
 * the console's security headers) and the OpenAPI document at /swagger/json, built from the route table (each
 * route's `detail`, body and query schemas).
 */
export function apiReference({ version, routes, beforeDocument }: ApiReferenceOptions) {
  const documentation = {
    info: { title: "prx gateway", description: "prx agent host HTTP API", version },
    components: {
      securitySchemes: {
        bearer: { type: "http" as const, scheme: "bearer", description: "token from POST /pair" },
        apiKey: { type: "apiKey" as const, in: "header" as const, name: "x-api-key", description: "the same token, as Anthropic's SDKs send a key" },
      },
    },
    get tags() {
      return tagsOf(routes());
    },
    get paths() {
      return extraPaths(routes());
    },
  };
  const bundle = Bun.file(scalarBundlePath);
  const reference = new Elysia({ name: "prx-api-reference" })
    .use(authOption)
    .onBeforeHandle(async function documentReady({ path }) {
      if (path === REFERENCE_DOCUMENT_PATH) await Promise.all(beforeDocument.map((load) => load()));
    })
    .onAfterHandle(function pageHeaders({ path, set }) {
      if (path === REFERENCE_PATH || path === `${REFERENCE_PATH}/`) Object.assign(set.headers, PAGE_HEADERS);
    })
    .use(
      swagger({
        provider: "scalar",
        path: REFERENCE_PATH,
        specPath: REFERENCE_DOCUMENT_PATH,
        scalarCDN: `${REFERENCE_ASSET_PREFIX}${BUNDLE_NAME}`,
        // the plugin types the configuration of an older Scalar release, without these keys
        scalarConfig: SCALAR_CONFIG as Record<string, unknown>,
        documentation,
      }),
    );
  // @elysiajs/swagger registers its page and document without route options: both are public, as `auth: false` makes
  // a route (the route table reads the same mark).
  for (const route of reference.routes) (route.hooks as Record<string, unknown>)[PUBLIC_ROUTE] = true;
  return reference.get(
    `${REFERENCE_ASSET_PREFIX}:name`,
    ({ params }) => {
      if (params.name !== BUNDLE_NAME) {
        throw new PrxError("NOT_FOUND", `no API reference file "${params.name}"`, { hint: `the reference's one file is ${BUNDLE_NAME}` });
      }
      return new Response(bundle, { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" } });
    },
    { auth: false, detail: doc({ summary: "The API reference's script bundle", tags: ["docs"], responses: { 200: { description: "JavaScript" } }, errors: [404] }) },
  );
}
