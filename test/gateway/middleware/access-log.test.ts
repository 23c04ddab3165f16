import { describe, expect, test } from "bun:test";
import type { AccessEntry } from "../../../src/gateway/access-log.ts";
import { accessLog, requestRecorder } from "../../../src/gateway/middleware/access-log.ts";
import { errorResponse } from "../../../src/gateway/middleware/error-response.ts";
import { requestId } from "../../../src/gateway/middleware/request-id.ts";
import { requestState } from "../../../src/gateway/middleware/state.ts";
import { Elysia } from "elysia";
import { PrxError } from "../../../src/core/errors.ts";

describe("accessLog", () => {
  test("one entry and one metric per request: answers by route, errors by route, unmatched and rejected", async () => {
    const entries: AccessEntry[] = [];
    const metrics: string[] = [];
    const record = requestRecorder({ metrics: { request: (route, method, status) => metrics.push(`${method} ${route} ${status}`) }, log: (entry) => entries.push(entry) });
    const app = new Elysia()
      .use(requestState({ clientAddress: () => "10.0.0.9" }))
      .use(requestId())
      .use(accessLog(record))
      .use(errorResponse({ methodsOf: (path) => (path === "/items/1" ? ["GET"] : []), clientAddress: () => "10.0.0.9", logger: { error() {}, warn() {}, debug() {} }, record }))
      .get("/items/:id", ({ set }) => ((set.status = 201), { ok: true }))
      .get("/fail", () => {
        throw new PrxError("CONFLICT", "taken");
      });
    const call = (method: string, path: string) => app.handle(new Request(`http://localhost${path}`, { method, headers: { "x-request-id": `r-${entries.length}` } }));
    expect((await call("GET", "/items/1")).status).toBe(201);
    expect((await call("GET", "/fail")).status).toBe(409);
    expect((await call("GET", "/none")).status).toBe(404);
    const notAllowed = await call("DELETE", "/items/1");
    expect(notAllowed.status).toBe(405);
    expect(notAllowed.headers.get("allow")).toBe("GET");
    expect(metrics).toEqual(["GET /items/:id 201", "GET /fail 409", "GET unmatched 404", "DELETE unmatched 405"]);
    expect(entries.map(({ method, path, status, id, client }) => ({ method, path, status, id, client }))).toEqual([
      { method: "GET", path: "/items/1", status: 201, id: "r-0", client: "10.0.0.9" },
      { method: "GET", path: "/fail", status: 409, id: "r-1", client: "10.0.0.9" },
      { method: "GET", path: "/none", status: 404, id: "r-2", client: "10.0.0.9" },
      { method: "DELETE", path: "/items/1", status: 405, id: "r-3", client: "10.0.0.9" },
    ]);
    for (const entry of entries) expect(entry.ms).toBeGreaterThanOrEqual(0);
  });
});
