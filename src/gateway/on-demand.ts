import { errorMessage } from "../core/errors.ts";
import type { GatewayContext } from "./context.ts";
import { jsonResponse } from "./json-response.ts";
import { answerHealth, readiness } from "./readiness.ts";

type Fetch = (request: Request) => Response | Promise<Response>;

/** What Bun.serve serves with: native routes first, `fetch` for the rest. */
export interface ServeHandlers {
  routes: Record<string, unknown>;
  fetch: Fetch;
}

export interface OnDemandOptions {
  gw: GatewayContext;
  server: () => Bun.Server<unknown> | null;
  /** Builds the route table (Elysia and every route group) and returns its handlers. */
  build: () => Promise<ServeHandlers>;
  /** Serve with these handlers from now on (Bun.serve's reload). */
  swap: (handlers: ServeHandlers) => void;
}

/**
 * The gateway's handlers until its route table exists: GET (and HEAD) /health is answered from the same readiness
 * checks as the full route (request id, metrics and access log included), and the first other request builds the
 * route table, which serves every request from then on. A gateway that only answers health checks never loads
 * Elysia, TypeBox or the routes' zod schemas (~1.5 MB of its idle RSS; README, Performance). A route table that
 * fails to build answers 500 naming why, and the next request tries again.
 */
export function onDemandHandlers(options: OnDemandOptions): ServeHandlers {
  const { gw } = options;
  let full: Promise<Fetch> | undefined;
  const ensureFull = (): Promise<Fetch> =>
    (full ??= options.build().then(
      (handlers) => {
        options.swap(handlers);
        return handlers.fetch;
      },
      (error: unknown) => {
        full = undefined;
        throw error;
      },
    ));
  const fetch = async (request: Request): Promise<Response> => {
    let handle: Fetch;
    try {
      handle = await ensureFull();
    } catch (error) {
      const message = `the gateway's routes failed to build: ${errorMessage(error)}`;
      gw.logger.error(message);
      const body = { error: { code: "INTERNAL", message, hint: "see the gateway's log; the next request tries again" } };
      return jsonResponse(body, 500);
    }
    return handle(request);
  };
  const health = async (request: Request): Promise<Response> => {
    // a declared body is checked against max_body_bytes by the full pipeline
    if (request.headers.has("content-length") || request.headers.has("transfer-encoding")) return fetch(request);
    const start = performance.now();
    // Bun answers HEAD with the GET route: the entry says which it was
    const { response, entry } = answerHealth(request, gw.clientAddress(request, options.server()), start, await readiness(gw));
    gw.metrics.request("/health", entry.method, entry.status, entry.ms / 1000);
    gw.accessLog(entry);
    return response;
  };
  return { routes: { "/health": { GET: health } }, fetch };
}
