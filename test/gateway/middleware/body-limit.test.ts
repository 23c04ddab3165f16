import { describe, expect, test } from "bun:test";
import { bodyLimit } from "../../../src/gateway/middleware/body-limit.ts";
import { middlewareApp } from "./app.ts";

describe("bodyLimit", () => {
  test("a declared body at the limit reaches the route; one byte more is 413 naming the limit, and is never read", async () => {
    let limit = 10;
    let handled = 0;
    const { app } = middlewareApp();
    const served = app.use(bodyLimit({ maxBytes: () => limit })).post("/x", () => (handled++, "ok"), { parse: "none" });
    const post = (size: number) =>
      served.handle(new Request("http://localhost/x", { method: "POST", body: "x".repeat(size), headers: { "content-length": String(size) } }));
    expect((await post(10)).status).toBe(200);
    const refused = await post(11);
    expect(refused.status).toBe(413);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain("max_body_bytes = 10");
    expect(handled).toBe(1);
    // the limit is read per request
    limit = 11;
    expect((await post(11)).status).toBe(200);
  });
});
