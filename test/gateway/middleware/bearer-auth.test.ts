import { describe, expect, test } from "bun:test";
import type { Credential } from "../../../src/gateway/auth/service.ts";
import { PrxError } from "../../../src/core/errors.ts";
import { authOption, authorizationOf, bearerAuth, PUBLIC_ROUTE } from "../../../src/gateway/middleware/bearer-auth.ts";
import { doc } from "../../../src/gateway/openapi/doc.ts";
import { routeTable } from "../../../src/gateway/route-table.ts";
import { get, middlewareApp } from "./app.ts";

const TOKEN: Credential = { id: "t1", name: "test", kind: "token" };

function authenticate(header: string | null): Credential {
  if (header === "Bearer good") return TOKEN;
  throw new PrxError("UNAUTHORIZED", header ? "invalid or revoked token" : "missing Authorization header");
}

function servedWith(auth: { authenticate(header: string | null): Credential | Promise<Credential> }) {
  const routes = routeTable();
  const { app, recorded } = middlewareApp();
  const served = app
    .use(authOption)
    .use(bearerAuth({ auth, isPublic: (path) => routes.isPublic(path) }))
    .get("/open", () => "open", { auth: false, detail: doc({ summary: "open", tags: ["t"], responses: {} }) })
    .get("/closed", ({ prx }) => prx.credential.id, { detail: doc({ summary: "closed", tags: ["t"], responses: {} }) });
  routes.load(served.routes);
  return { served, recorded };
}

describe("bearerAuth", () => {
  test("the token in x-api-key is the same bearer token; Authorization wins when both are sent", async () => {
    const { served } = servedWith({ authenticate });
    const closed = (headers: Record<string, string>) => served.handle(get("/closed", headers));
    expect((await closed({ "x-api-key": "good" })).status).toBe(200);
    expect((await closed({ "x-api-key": "bad" })).status).toBe(401);
    expect((await closed({ authorization: "Bearer good", "x-api-key": "bad" })).status).toBe(200);
    expect(authorizationOf(new Headers({ "x-api-key": " good " }))).toBe("Bearer good");
    expect(authorizationOf(new Headers())).toBeNull();
  });

  test("a route declared auth: false needs no token; the others are 401 without one, with WWW-Authenticate", async () => {
    const { served, recorded } = servedWith({ authenticate });
    expect((await served.handle(get("/open"))).status).toBe(200);
    const denied = await served.handle(get("/closed"));
    expect(denied.status).toBe(401);
    expect(denied.headers.get("www-authenticate")).toBe('Bearer realm="prx"');
    expect(recorded.map((r) => `${r.route} ${r.status}`)).toEqual(["rejected 401"]);
    // an unknown path is not public either: no route is revealed without a token
    expect((await served.handle(get("/nothing"))).status).toBe(401);
  });

  test("the credential becomes prx.credential, also when the token store answers later", async () => {
    for (const auth of [{ authenticate }, { authenticate: async (header: string | null) => authenticate(header) }]) {
      const { served } = servedWith(auth);
      const response = await served.handle(get("/closed", { authorization: "Bearer good" }));
      expect(response.status).toBe(200);
      expect(await response.text()).toBe("t1");
      expect((await served.handle(get("/closed", { authorization: "Bearer bad" }))).status).toBe(401);
    }
  });

  test("auth: false marks the route public for the route table and drops its security requirement in the docs", () => {
    const { served } = servedWith({ authenticate });
    const open = served.routes.find((r) => r.path === "/open")!;
    const closed = served.routes.find((r) => r.path === "/closed")!;
    expect((open.hooks as Record<string, unknown>)[PUBLIC_ROUTE]).toBe(true);
    expect((closed.hooks as Record<string, unknown>)[PUBLIC_ROUTE]).toBeUndefined();
    const docs = (route: typeof open) => JSON.parse(JSON.stringify(route.hooks.detail)) as { security?: unknown; responses: Record<string, unknown> };
    expect(docs(open).security).toBeUndefined();
    expect(Object.keys(docs(open).responses)).toEqual([]);
    expect(docs(closed).security).toEqual([{ bearer: [] }]);
    expect(Object.keys(docs(closed).responses)).toEqual(["401", "429"]);
  });
});
