import {
  BODY_DEADLINE_MS,
  CONNECTIONS_MAX,
  CONNECTIONS_PER_ADDRESS_MAX,
  GATEWAY_IDLE_TIMEOUT_S,
  GATEWAY_REQUEST_TIMEOUT_S,
} from "../limits.ts";
import { jsonResponse } from "../json-response.ts";
import { ConnectionCaps } from "./connection-caps.ts";
import { LOCAL_CLIENT, REAL_TIMER, recordFacts } from "./request-facts.ts";
import { pathOf, routableUrl } from "./request-url.ts";
import type { CapReached, FrontServer, RequestFacts, Timer } from "./types.ts";

export type FrontFetch<S extends FrontServer> = (request: Request, server: S) => Response | Promise<Response>;

/**
 * What every request passes before the app (or the /health answered before it): the connection caps (over one, 503
 * at once and the connection closed), its facts (peer address, body deadline), a URL Elysia can route, and Bun's
 * timer on its connection: GATEWAY_REQUEST_TIMEOUT_S while it runs or streams, GATEWAY_IDLE_TIMEOUT_S once answered.
 * An answer given before the request's body was read to its end closes the connection (the rest is never read).
 */
export function guardedFetch<S extends FrontServer>(inner: FrontFetch<S>, timer: Timer = REAL_TIMER): FrontFetch<S> {
  const caps = new ConnectionCaps();
  return async (request, server) => {
    const peer = server.requestIP(request)?.address ?? LOCAL_CLIENT;
    const body = hasBody(request);
    const spared = !body && isHealthProbe(request);
    const reached = caps.acquire(peer, spared);
    if (reached) return refused(reached);
    try {
      server.timeout(request, GATEWAY_REQUEST_TIMEOUT_S);
      const url = routableUrl(request.url, server);
      const forwarded = url === null ? request : new Request(url, request);
      const facts: RequestFacts = {
        peer,
        bodyDeadlineAt: body ? timer.now() + BODY_DEADLINE_MS : null,
        timer,
        bodyRead: !body,
      };
      recordFacts(forwarded, facts);
      const response = await inner(forwarded, server);
      if (!facts.bodyRead) return closing(response);
      if (!isStream(response)) server.timeout(request, GATEWAY_IDLE_TIMEOUT_S);
      return response;
    } finally {
      caps.release(peer, spared);
    }
  };
}

function hasBody(request: Request): boolean {
  const length = request.headers.get("content-length");
  return (length !== null && length !== "0") || request.headers.has("transfer-encoding");
}

function isHealthProbe(request: Request): boolean {
  return (request.method === "GET" || request.method === "HEAD") && pathOf(request.url) === "/health";
}

function isStream(response: Response): boolean {
  return response.headers.get("content-type")?.startsWith("text/event-stream") === true;
}

/** The same answer, with the connection closed after it. */
function closing(response: Response): Response {
  const headers = new Headers(response.headers);
  headers.set("connection", "close");
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** 503 for a request over a connection cap, in the gateway's error shape; the connection closes after it. */
function refused(reached: CapReached): Response {
  const message =
    reached === "address"
      ? `too many requests in flight from this client address (at most ${CONNECTIONS_PER_ADDRESS_MAX})`
      : `too many requests in flight (at most ${CONNECTIONS_MAX} in all)`;
  const error = { code: "LIMIT_EXCEEDED", message, hint: "wait for your running requests to finish, then retry" };
  return jsonResponse({ error }, 503, { connection: "close", "retry-after": "1" });
}
