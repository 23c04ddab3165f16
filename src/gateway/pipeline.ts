import { Elysia } from "elysia";
import { attempt, then, type Awaitable } from "../core/awaitable.ts";
import { PrxError, toPrxError } from "../core/errors.ts";
import { OPEN_CREDENTIAL, type Credential } from "./auth/service.ts";
import { tooLarge } from "./body.ts";
import type { GatewayContext } from "./context.ts";
import { errorResponseFor, fromElysiaError, statusOf } from "./errors.ts";
import { requestIdOf } from "./request-id.ts";
import type { RouteTable } from "./route-table.ts";
import type { RateDecision } from "./types.ts";

/**
 * The request pipeline every route shares, as one Elysia plugin: `onRequest` (request id, client address, rate
 * limits, auth, declared body size; before routing and before any body is read), `onAfterHandle` (the route's
 * response: x-request-id, metrics, access log) and `onError` (PrxError -> JSON with the right status, metrics, access
 * log). Each request's state is the typed `prx` of the handler's context. Nothing is left to onAfterResponse: it costs
 * a macrotask per request, and setting `set.headers` would make Elysia copy every response into a new one.
 */
export interface RequestState {
  id: string;
  start: number;
  path: string;
  client: string;
  /** Who the request authenticated as (OPEN_CREDENTIAL on public routes and when auth is off). */
  credential: Credential;
  done: boolean;
}

/** The context's placeholder until onRequest fills it in (every request passes onRequest first). */
const NOT_STARTED: Readonly<RequestState> = Object.freeze({
  id: "",
  start: 0,
  path: "",
  client: "",
  credential: OPEN_CREDENTIAL,
  done: true,
});

function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const query = url.indexOf("?", start);
  return query < 0 ? url.slice(start) : url.slice(start, query);
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

export interface PipelineOptions {
  gw: GatewayContext;
  routes: RouteTable;
  /** The server the app listens with (null for app.handle): the client address comes from its socket. */
  server: () => Bun.Server<unknown> | null;
}

export function requestPipeline({ gw, routes, server }: PipelineOptions) {
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
      ...(state.credential.kind === "token" ? { token: state.credential.id } : {}),
    });
  }

  function reject(request: Request, state: RequestState, error: PrxError): Response {
    const response = errorResponseFor(state.path, error, headersFor(error, state.id));
    finish(request, state, "rejected", response.status);
    return response;
  }

  function begin(request: Request): RequestState {
    return {
      id: requestIdOf(request),
      start: performance.now(),
      path: pathOf(request.url),
      client: gw.clientAddress(request, server()),
      credential: OPEN_CREDENTIAL,
      done: false,
    };
  }

  /**
   * Rate limits, auth and the declared body size, before routing: a Response refuses the request. Synchronous while
   * every step is (this process's buckets, SQLite tokens); a step answered later (shared limits in Redis, a token
   * PostgreSQL has to look up) makes it a promise.
   */
  function admit(request: Request, state: RequestState): Awaitable<Response | undefined> {
    const fail = (error: unknown) => reject(request, state, toPrxError(error));
    const afterClient = (decision: RateDecision): Awaitable<Response | undefined> => {
      if (!decision.ok) {
        const message = `rate limit of ${gw.config.rate_limit_per_minute} requests per minute exceeded for ${state.client}`;
        return reject(request, state, new PrxError("RATE_LIMITED", message, {
          hint: "slow down or raise gateway.rate_limit_per_minute",
          details: { retryAfterS: decision.retryAfterS },
        }));
      }
      if (routes.isPublic(state.path)) return bodySize(request, state);
      return attempt(() => then(gw.auth.authenticate(request.headers.get("authorization")), authenticated), fail);
    };
    const authenticated = (credential: Credential): Awaitable<Response | undefined> => {
      state.credential = credential;
      if (credential.kind !== "token") return bodySize(request, state);
      return then(gw.tokenLimiter.take(credential.id), (decision) => {
        if (decision.ok) return bodySize(request, state);
        const limit = gw.config.rate_limit_per_token_per_minute;
        const message = `rate limit of ${limit} requests per minute exceeded for token "${credential.name}"`;
        return reject(request, state, new PrxError("RATE_LIMITED", message, {
          hint: "slow down or raise gateway.rate_limit_per_token_per_minute",
          details: { retryAfterS: decision.retryAfterS },
        }));
      });
    };
    if (state.path === "/health") return afterClient({ ok: true });
    return attempt(() => then(gw.clientLimiter.take(state.client), afterClient), fail);
  }

  function bodySize(request: Request, state: RequestState): Response | undefined {
    const declared = request.headers.get("content-length");
    if (declared !== null && Number(declared) > gw.config.max_body_bytes) {
      return reject(request, state, tooLarge(declared, gw.config.max_body_bytes));
    }
    return undefined;
  }

  return new Elysia({ name: "prx-pipeline" })
    .decorate("prx", NOT_STARTED as RequestState)
    .onRequest((context) => {
      const state = begin(context.request);
      context.prx = state;
      return admit(context.request, state);
    })
    .onAfterHandle({ as: "global" }, ({ prx, request, route, responseValue, set }) => {
      if (prx.done) return undefined;
      if (responseValue instanceof Response) {
        const response = withRequestId(responseValue, prx.id);
        finish(request, prx, route, response.status);
        return response === responseValue ? undefined : response;
      }
      (set.headers as Record<string, string>)["x-request-id"] = prx.id;
      finish(request, prx, route, typeof set.status === "number" ? set.status : 200);
      return undefined;
    })
    .onError({ as: "global" }, ({ prx, request, code, error, route }) => {
      const state = prx === NOT_STARTED ? begin(request) : prx;
      // No route matched (a route's own PrxError NOT_FOUND reaches here with the same code): 405 when others would.
      const allowed = code === "NOT_FOUND" && !(error instanceof PrxError) ? routes.methodsOf(state.path) : [];
      const failure =
        allowed.length > 0
          ? methodNotAllowed(request.method, state.path, allowed)
          : fromElysiaError(code, error, request.method, state.path);
      const status = statusOf(failure);
      if (status === 500) gw.logger.error(failure.message, { id: state.id, code: failure.code });
      else if (status > 500) gw.logger.warn(failure.message, { id: state.id, code: failure.code });
      const response = errorResponseFor(state.path, failure, headersFor(failure, state.id));
      finish(request, state, code === "NOT_FOUND" || !route ? "unmatched" : route, response.status);
      return response;
    });
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
