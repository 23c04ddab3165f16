import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PUBLIC_ROUTE } from "../../src/gateway/middleware/bearer-auth.ts";
import { openApiPath } from "../../src/gateway/openapi/path.ts";
import { isRouteSchema } from "../../src/gateway/route-schema.ts";
import { routeTable } from "../../src/gateway/route-table.ts";
import { pluginGatewayMounts } from "../../src/gateway/routes/plugins.ts";
import { harness, json, type Harness } from "./harness.ts";

/** The gateway's one route table: what it serves is what it documents, and each body schema validates. */
let h: Harness;
beforeAll(async () => {
  const bare = { workspace: { root: "/nowhere" }, extensions: { state: "ready" as const }, loadExtensions: async () => {}, plugins: undefined };
  h = await harness({ deps: { mounts: pluginGatewayMounts(bare) } });
});
afterAll(() => h.close());

type Operation = { requestBody?: { content: Record<string, { schema: { type?: string; properties?: Record<string, unknown> } }> }; responses: Record<string, unknown>; security?: unknown };

describe("every route is in the OpenAPI document", () => {
  test("each route of the app, mounted ones included, with its method", async () => {
    const document = await json(h.call("/swagger/json", { auth: false }));
    const missing: string[] = [];
    for (const route of h.app.routes) {
      const methods = route.method === "ALL" ? ["get", "post"] : [route.method.toLowerCase()];
      for (const method of methods) if (!document.paths[openApiPath(route.path)]?.[method]) missing.push(`${route.method} ${route.path}`);
    }
    expect(missing).toEqual([]);
    expect(h.app.routes.length).toBeGreaterThan(40);
  });

  test("a route with a body schema documents that schema as its request body, and only those routes have one", async () => {
    const document = await json(h.call("/swagger/json", { auth: false }));
    const withBody = h.app.routes.filter((r) => isRouteSchema(r.hooks?.body));
    expect(withBody.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      "PATCH /api/sessions/:id",
      "POST /api/hooks",
      "POST /api/memory",
      "POST /api/plugins/:name/probe",
      "POST /api/sessions/:id/message",
      "POST /v1/chat/completions",
      "POST /v1/embeddings",
      "POST /v1/messages",
      "POST /v1/messages/count_tokens",
      "POST /v1/responses",
      "POST /webhook",
      "PUT /api/hooks",
    ]);
    for (const route of withBody) {
      const operation = document.paths[openApiPath(route.path)][route.method.toLowerCase()] as Operation;
      const schema = operation.requestBody?.content["application/json"]?.schema;
      expect(schema?.type, `${route.method} ${route.path}`).toBe("object");
      expect(Object.keys(schema?.properties ?? {}).length, `${route.method} ${route.path}`).toBeGreaterThan(0);
    }
    const message = document.paths["/api/sessions/{id}/message"].post as Operation;
    expect(Object.keys(message.requestBody!.content["application/json"]!.schema.properties!)).toEqual(["message", "model", "agent"]);
  });

  test("public routes are documented without security, the others with the bearer scheme", async () => {
    const document = await json(h.call("/swagger/json", { auth: false }));
    const open = Object.entries<Record<string, Operation>>(document.paths)
      .flatMap(([path, ops]) => Object.entries(ops).filter(([, op]) => !op.security).map(([method]) => `${method} ${path}`))
      .sort();
    expect(open).toEqual([
      "get /",
      "get /console/{name}",
      "get /health",
      "get /swagger",
      "get /swagger/assets/{name}",
      "get /swagger/json",
      "post /pair",
    ]);
  });
});

describe("a body failing its route's schema is a 400 naming the bad field's path", () => {
  test("a nested field of the OpenAI request", async () => {
    const response = await h.call("/v1/chat/completions", { json: { model: "m", messages: [{ role: "robot", content: "hi" }] } });
    expect(response.status).toBe(400);
    const body = await json(response);
    expect(body.error.code).toBe("BAD_REQUEST");
    expect(body.error.message).toStartWith("invalid request body: messages.0.role: ");
  });

  test("a session message: wrong type, unknown field, missing field", async () => {
    const send = (value: unknown) => h.call("/api/sessions/table-1/message", { json: value });
    const wrong = await json(send({ message: 5 }));
    expect(wrong.error.message).toStartWith("invalid request body: message: ");
    expect(wrong.error.hint).toContain("/swagger");
    expect((await json(send({ message: "x", extra: 1 }))).error.message).toContain("(body): Unrecognized key");
    expect((await json(send({}))).error.message).toStartWith("invalid request body: message: ");
  });

  test("a mounted route's body (a plugin probe) is validated the same way", async () => {
    const response = await h.call("/api/plugins/any/probe", { json: { action: 7 } });
    expect(response.status).toBe(400);
    expect((await json(response)).error.message).toStartWith("invalid request body: action: ");
  });

  test("the JSON itself is checked before the schema: 415, 400 for malformed JSON", async () => {
    const post = (body: string, type: string) => h.call("/api/memory", { method: "POST", body, headers: { "content-type": type } });
    expect((await post('{"key":"k","content":"c"}', "text/plain")).status).toBe(415);
    const malformed = await post("{nope", "application/json");
    expect(malformed.status).toBe(400);
    expect((await json(malformed)).error.message).toStartWith("malformed JSON in the request body");
  });
});

describe("routeTable", () => {
  const table = routeTable([
    { method: "GET", path: "/health", hooks: { [PUBLIC_ROUTE]: true } },
    { method: "GET", path: "/api/x/:id", hooks: {} },
    { method: "POST", path: "/api/x/:id" },
    { method: "GET", path: "/files/:name", hooks: { [PUBLIC_ROUTE]: true } },
  ]);

  test("public paths are the routes declared `auth: false`, with or without a trailing slash", () => {
    expect(["/health", "/health/", "/files/a.js"].map(table.isPublic)).toEqual([true, true, true]);
    expect(["/api/x/1", "/files", "/", "/healthz"].map(table.isPublic)).toEqual([false, false, false, false]);
  });

  test("methods of a path, for a 405's Allow header", () => {
    expect(table.methodsOf("/api/x/7")).toEqual(["GET", "POST"]);
    expect(table.methodsOf("/nothing")).toEqual([]);
  });
});
