import { PrxError, toPrxError } from "../core/errors.ts";
import { OPEN_CREDENTIAL, type Credential } from "./auth/service.ts";
import { tooLarge } from "./body.ts";
import type { GatewayContext } from "./context.ts";
import { errorResponse, fromElysiaError, statusOf } from "./errors.ts";
import { REQUEST_ID_MAX_CHARS } from "./limits.ts";

/**
 * The request pipeline every route shares, as three Elysia hooks: `before` (request id, rate limits, auth,
 * declared body size), `onError` (PrxError -> JSON with the right status) and `after` (metrics, access log).
 */
interface RequestState {
  id: string;
  start: number;
  path: string;
  client: string;
  credential: Credential | null;
  status: number;
  route: string;
  /** When the response was produced; onAfterResponse runs a tick later. */
  end: number;
  done: boolean;
}

const states = new WeakMap<Request, RequestState>();
const REQUEST_ID_RE = /^[\x21-\x7e]+$/;

/** Routes reachable without a bearer token. */
export function isPublicPath(path: string): boolean {
  const p = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  return p === "/health" || p === "/pair" || p === "/swagger" || p.startsWith("/swagger/");
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

export function createPipeline(gw: GatewayContext) {
  function finish(request: Request, state: RequestState, status: number): void {
    if (state.done) return;
    state.done = true;
    const seconds = ((state.end || performance.now()) - state.start) / 1000;
    gw.metrics.request(state.route, request.method, status, seconds);
    gw.accessLog.info(`${request.method} ${state.path} ${status}`, {
      id: state.id,
      ms: Math.round(seconds * 10_000) / 10,
      client: state.client,
      ...(state.credential && state.credential.kind === "token" ? { token: state.credential.id } : {}),
    });
  }

  function reject(request: Request, state: RequestState, error: PrxError): Response {
    const response = errorResponse(error, headersFor(error, state.id));
    state.status = response.status;
    state.route = "rejected";
    finish(request, state, response.status);
    return response;
  }

  function before(request: Request, headers: Record<string, string | number>): Response | undefined {
    const given = request.headers.get("x-request-id");
    const id = given && given.length <= REQUEST_ID_MAX_CHARS && REQUEST_ID_RE.test(given) ? given : crypto.randomUUID();
    const path = pathOf(request.url);
    const state: RequestState = {
      id,
      start: performance.now(),
      path,
      client: gw.clientAddress(request),
      credential: null,
      status: 0,
      route: "unmatched",
      end: 0,
      done: false,
    };
    states.set(request, state);
    headers["x-request-id"] = id;

    if (path !== "/health") {
      const decision = gw.clientLimiter.take(state.client);
      if (!decision.ok) {
        const message = `rate limit of ${gw.config.rate_limit_per_minute} requests per minute exceeded for ${state.client}`;
        const error = new PrxError("RATE_LIMITED", message, {
          hint: "slow down or raise gateway.rate_limit_per_minute",
          details: { retryAfterS: decision.retryAfterS },
        });
        return reject(request, state, error);
      }
    }
    if (!isPublicPath(path)) {
      try {
        state.credential = gw.auth.authenticate(request.headers.get("authorization"));
      } catch (error) {
        return reject(request, state, toPrxError(error));
      }
      if (state.credential.kind === "token") {
        const decision = gw.tokenLimiter.take(state.credential.id);
        if (!decision.ok) {
          const limit = gw.config.rate_limit_per_token_per_minute;
          const error = new PrxError(
            "RATE_LIMITED",
            `rate limit of ${limit} requests per minute exceeded for token "${state.credential.name}"`,
            {
              hint: "slow down or raise gateway.rate_limit_per_token_per_minute",
              details: { retryAfterS: decision.retryAfterS },
            },
          );
          return reject(request, state, error);
        }
      }
    }
    const declared = request.headers.get("content-length");
    if (declared !== null && Number(declared) > gw.config.max_body_bytes) {
      return reject(request, state, tooLarge(declared, gw.config.max_body_bytes));
    }
    return undefined;
  }

  function onError(request: Request, code: string | number, thrown: unknown): Response {
    const state = states.get(request);
    const error = fromElysiaError(code, thrown, request.method, state?.path ?? pathOf(request.url));
    const status = statusOf(error);
    if (status === 500) gw.logger.error(error.message, { id: state?.id, code: error.code });
    else if (status > 500) gw.logger.warn(error.message, { id: state?.id, code: error.code });
    const response = errorResponse(error, state ? headersFor(error, state.id) : undefined);
    if (state) {
      state.status = response.status;
      state.end = performance.now();
      if (code === "NOT_FOUND") state.route = "unmatched";
    }
    return response;
  }

  /** Marks the moment the handler produced its response. */
  function handled(request: Request): void {
    const state = states.get(request);
    if (state) state.end = performance.now();
  }

  function after(request: Request, route: string | undefined, response: unknown, setStatus: unknown): void {
    const state = states.get(request);
    if (!state) return;
    if (route && state.status !== 404) state.route = route;
    let status = state.status;
    if (!status)
      status = response instanceof Response ? response.status : typeof setStatus === "number" ? setStatus : 200;
    finish(request, state, status);
  }

  return { before, onError, handled, after };
}

function headersFor(error: PrxError, id: string): Record<string, string> {
  const headers: Record<string, string> = { "x-request-id": id };
  const retry = error.details?.retryAfterS;
  if (typeof retry === "number") headers["retry-after"] = String(retry);
  if (statusOf(error) === 401) headers["www-authenticate"] = 'Bearer realm="prx"';
  return headers;
}
