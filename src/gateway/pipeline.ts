import { attempt, then } from "../core/awaitable.ts";
import { PrxError, toPrxError } from "../core/errors.ts";
import { OPEN_CREDENTIAL, type Credential } from "./auth/service.ts";
import { tooLarge } from "./body.ts";
import type { GatewayContext } from "./context.ts";
import { errorResponseFor, fromElysiaError, statusOf } from "./errors.ts";
import { REQUEST_ID_MAX_CHARS } from "./limits.ts";
import type { MethodsOf } from "./route-methods.ts";
import type { RateDecision } from "./types.ts";

/**
 * The request pipeline every route shares, as three Elysia hooks: `before` (request id, rate limits, auth,
 * declared body size), `handled` (the route's response: x-request-id, metrics, access log) and `onError`
 * (PrxError -> JSON with the right status, metrics, access log). Nothing is left to onAfterResponse: it costs a
 * macrotask per request, and setting `set.headers` would make Elysia copy every response into a new one.
 */
interface RequestState {
  id: string;
  start: number;
  path: string;
  client: string;
  credential: Credential | null;
  done: boolean;
}

const states = new WeakMap<Request, RequestState>();
const REQUEST_ID_RE = /^[\x21-\x7e]+$/;

/** Routes reachable without a bearer token (channel webhooks are authenticated by the platform's signature). */
export function isPublicPath(path: string): boolean {
  const p = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  return p === "/health" || p === "/pair" || p === "/swagger" || p.startsWith("/swagger/") || /^\/channels\/[^/]+\/webhook$/.test(p);
}

function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const query = url.indexOf("?", start);
  return query < 0 ? url.slice(start) : url.slice(start, query);
}

/** The credential the request authenticated with (OPEN_CREDENTIAL when auth is off or the route is public). */
export function credentialOf(request: Request): Credential {
  return states.get(request)?.credential ?? OPEN_CREDENTIAL;
}

export function requestIdOf(request: Request): string {
  return states.get(request)?.id ?? "";
}

/** The response with x-request-id set: in place when its headers are mutable, else a copy. */
function withRequestId(response: Response, id: string): Response {
  try {
    response.headers.set("x-request-id", id);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    copy.headers.set("x-request-id", id);
    return copy;
  }
}

export function createPipeline(gw: GatewayContext) {
  /** The app's route table (set once Elysia has its routes): turns "no route" into 405 when the path has others. */
  let methodsOf: MethodsOf = () => [];

  function finish(request: Request, state: RequestState, route: string, status: number): void {
    if (state.done) return;
    state.done = true;
    const ms = performance.now() - state.start;
    gw.metrics.request(route, request.method, status, ms / 1000);
    gw.accessLog({
      method: request.method,
      path: state.path,
      status,
      id: state.id,
      ms: Math.round(ms * 10) / 10,
      client: state.client,
      ...(state.credential && state.credential.kind === "token" ? { token: state.credential.id } : {}),
    });
  }

  function reject(request: Request, state: RequestState, error: PrxError): Response {
    const response = errorResponseFor(state.path, error, headersFor(error, state.id));
    finish(request, state, "rejected", response.status);
    return response;
  }

  /**
   * Request id, client rate limit, auth, token rate limit, declared body size. Synchronous while every step is
   * (this process's buckets, SQLite tokens); a step answered later (shared limits in Redis, a token PostgreSQL has
   * to look up) makes it a promise.
   */
  function before(request: Request): Response | undefined | Promise<Response | undefined> {
    const given = request.headers.get("x-request-id");
    const id = given && given.length <= REQUEST_ID_MAX_CHARS && REQUEST_ID_RE.test(given) ? given : crypto.randomUUID();
    const path = pathOf(request.url);
    const state: RequestState = {
      id,
      start: performance.now(),
      path,
      client: gw.clientAddress(request),
      credential: null,
      done: false,
    };
    states.set(request, state);
    const fail = (error: unknown) => reject(request, state, toPrxError(error));
    const afterClient = (decision: RateDecision): Response | undefined | Promise<Response | undefined> => {
      if (!decision.ok) {
        const message = `rate limit of ${gw.config.rate_limit_per_minute} requests per minute exceeded for ${state.client}`;
        const error = new PrxError("RATE_LIMITED", message, {
          hint: "slow down or raise gateway.rate_limit_per_minute",
          details: { retryAfterS: decision.retryAfterS },
        });
        return reject(request, state, error);
      }
      if (isPublicPath(path)) return bodySize(request, state);
      return attempt(() => then(gw.auth.authenticate(request.headers.get("authorization")), authenticated), fail);
    };
    const authenticated = (credential: Credential): Response | undefined | Promise<Response | undefined> => {
      state.credential = credential;
      if (credential.kind !== "token") return bodySize(request, state);
      return then(gw.tokenLimiter.take(credential.id), (decision) => {
        if (decision.ok) return bodySize(request, state);
        const limit = gw.config.rate_limit_per_token_per_minute;
        const error = new PrxError(
          "RATE_LIMITED",
          `rate limit of ${limit} requests per minute exceeded for token "${credential.name}"`,
          {
            hint: "slow down or raise gateway.rate_limit_per_token_per_minute",
            details: { retryAfterS: decision.retryAfterS },
          },
        );
        return reject(request, state, error);
      });
    };
    if (path === "/health") return afterClient({ ok: true });
    return attempt(() => then(gw.clientLimiter.take(state.client), afterClient), fail);
  }

  function bodySize(request: Request, state: RequestState): Response | undefined {
    const declared = request.headers.get("content-length");
    if (declared !== null && Number(declared) > gw.config.max_body_bytes) {
      return reject(request, state, tooLarge(declared, gw.config.max_body_bytes));
    }
    return undefined;
  }

  function onError(request: Request, code: string | number, thrown: unknown, route: string | undefined): Response {
    const state = states.get(request);
    const path = state?.path ?? pathOf(request.url);
    // No route matched (a route's own PrxError NOT_FOUND reaches here with the same code): 405 when others would.
    const allowed = code === "NOT_FOUND" && !(thrown instanceof PrxError) ? methodsOf(path) : [];
    const error = allowed.length > 0 ? methodNotAllowed(request.method, path, allowed) : fromElysiaError(code, thrown, request.method, path);
    const status = statusOf(error);
    if (status === 500) gw.logger.error(error.message, { id: state?.id, code: error.code });
    else if (status > 500) gw.logger.warn(error.message, { id: state?.id, code: error.code });
    const response = errorResponseFor(path, error, state ? headersFor(error, state.id) : undefined);
    if (state) finish(request, state, code === "NOT_FOUND" || !route ? "unmatched" : route, response.status);
    return response;
  }

  /**
   * The route produced its response (the head; a stream may follow): stamp x-request-id, count it, log it.
   * Returns a replacement only when the value is not a Response (Elysia then maps it with `set.headers`).
   */
  function handled(
    request: Request,
    route: string,
    value: unknown,
    set: { headers: unknown; status?: unknown },
  ): Response | undefined {
    const state = states.get(request);
    if (!state) return undefined;
    if (value instanceof Response) {
      const response = withRequestId(value, state.id);
      finish(request, state, route, response.status);
      return response === value ? undefined : response;
    }
    (set.headers as Record<string, string>)["x-request-id"] = state.id;
    finish(request, state, route, typeof set.status === "number" ? set.status : 200);
    return undefined;
  }

  /**
   * One request served outside Elysia (Bun.serve's native routes for the hottest paths, see app.ts): the same
   * steps as the Elysia hooks, in the same order.
   */
  async function serve(
    request: Request,
    route: string,
    handler: (request: Request) => Response | Promise<Response>,
  ): Promise<Response> {
    const pending = before(request);
    const early = pending instanceof Promise ? await pending : pending;
    if (early) return early;
    let response: Response;
    try {
      response = await handler(request);
    } catch (thrown) {
      return onError(request, "UNKNOWN", thrown, route);
    }
    const state = states.get(request)!;
    const stamped = withRequestId(response, state.id);
    finish(request, state, route, stamped.status);
    return stamped;
  }

  function useRoutes(table: MethodsOf): void {
    methodsOf = table;
  }

  return { before, onError, handled, serve, useRoutes };
}

function methodNotAllowed(method: string, path: string, allowed: string[]): PrxError {
  return new PrxError("METHOD_NOT_ALLOWED", `${method} is not allowed on ${path}; it answers ${allowed.join(", ")}`, {
    hint: `send ${allowed.join(" or ")} (see /swagger for the API reference)`,
    details: { allow: allowed.join(", ") },
  });
}

function headersFor(error: PrxError, id: string): Record<string, string> {
  const headers: Record<string, string> = { "x-request-id": id };
  const retry = error.details?.retryAfterS;
  if (typeof retry === "number") headers["retry-after"] = String(retry);
  if (statusOf(error) === 401) headers["www-authenticate"] = 'Bearer realm="prx"';
  const allow = error.details?.allow;
  if (typeof allow === "string") headers.allow = allow;
  return headers;
}
