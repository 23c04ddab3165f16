import { describe, expect, test } from "bun:test";
import { requestId } from "../../../src/gateway/middleware/request-id.ts";
import { REQUEST_ID_MAX_CHARS } from "../../../src/gateway/limits.ts";
import { get, middlewareApp } from "./app.ts";

describe("requestId", () => {
  const { app } = middlewareApp();
  const served = app
    .use(requestId())
    .get("/value", ({ prx }) => ({ id: prx.id }))
    .get("/response", ({ prx }) => new Response(prx.id));

  test("a sane client id is the request's id and is answered, for a plain value and for a Response", async () => {
    const value = await served.handle(get("/value", { "x-request-id": "abc-123" }));
    expect(value.headers.get("x-request-id")).toBe("abc-123");
    expect(await value.json()).toEqual({ id: "abc-123" });
    const response = await served.handle(get("/response", { "x-request-id": "abc-124" }));
    expect(response.headers.get("x-request-id")).toBe("abc-124");
    expect(await response.text()).toBe("abc-124");
  });

  test("no id, one too long or one with spaces: a fresh UUID", async () => {
    for (const given of [undefined, "x".repeat(REQUEST_ID_MAX_CHARS + 1), "has space"]) {
      const response = await served.handle(get("/value", given === undefined ? {} : { "x-request-id": given }));
      expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    }
    const atLimit = "x".repeat(REQUEST_ID_MAX_CHARS);
    expect((await served.handle(get("/value", { "x-request-id": atLimit }))).headers.get("x-request-id")).toBe(atLimit);
  });

  test("an error answer carries the id too", async () => {
    const response = await served.handle(get("/nothing", { "x-request-id": "lost-1" }));
    expect(response.status).toBe(404);
    expect(response.headers.get("x-request-id")).toBe("lost-1");
  });
});
