import { Elysia } from "elysia";
import { then, type Awaitable } from "../../core/awaitable.ts";
import type { AuthService } from "../auth/service.ts";
import { withRequestState } from "./state.ts";

/** What a route declared `auth: false` carries in its hooks: the route table reads it. */
export const PUBLIC_ROUTE = "publicRoute";

/**
 * The typed route option `auth` (an Elysia macro): `auth: false` makes a route public. The route table reads the
 * mark it leaves (bearer auth lets such paths through) and the API reference drops the route's security requirement.
 * `auth: "in-handler"`: bearer auth lets the path through too, but the handler checks the token itself, route by
 * route (a remote plugin's routes, public only where the plugin says so); the reference keeps the requirement.
 */
export const authOption = new Elysia({ name: "prx-auth-option" }).macro({
  auth: (required: boolean | "in-handler") =>
    required === true
      ? {}
      : required === "in-handler"
        ? { [PUBLIC_ROUTE]: true as const }
        : { detail: { security: undefined }, [PUBLIC_ROUTE]: true as const },
});

export interface BearerAuthOptions {
  auth: Pick<AuthService, "authenticate">;
  /** True when a route matching `path` was declared `auth: false`. */
  isPublic(path: string): boolean;
}

/**
 * The token a request presents: `Authorization` as it is, or else `x-api-key: <token>` (how Anthropic's SDKs and
 * tools built on them send a key) as the same bearer token.
 */
export function authorizationOf(headers: Headers): string | null {
  const authorization = headers.get("authorization");
  if (authorization !== null) return authorization;
  const key = headers.get("x-api-key");
  return key === null ? null : `Bearer ${key.trim()}`;
}

/**
 * The bearer token check before routing (so no body of an unauthenticated request is read): a missing, malformed or
 * revoked token is 401; the credential becomes `prx.credential`. A token PostgreSQL has to look up answers later.
 */
export function bearerAuth({ auth, isPublic }: BearerAuthOptions) {
  return withRequestState("prx-bearer-auth").onRequest(function authenticate({ prx, request }): Awaitable<void> {
    if (isPublic(prx.path)) return;
    return then(auth.authenticate(authorizationOf(request.headers)), (credential) => {
      prx.credential = credential;
    });
  });
}
