import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AnyElysia } from "elysia";
import { lazyElysiaApp } from "../../src/gateway/lazy-app.ts";
import { harness, type Harness } from "./harness.ts";

/** Routes other than the native ones are served by Elysia, built on the first request that needs it. */
let h: Harness;
beforeAll(async () => {
  h = await harness({ requirePairing: true });
});
afterAll(() => h.close());

const statusRequest = () =>
  new Request("http://localhost/api/status", { headers: { authorization: `Bearer ${h.token}` } });

describe("lazyElysiaApp", () => {
  test("builds the app once, on the first request, for concurrent requests too", async () => {
    let builds = 0;
    const serve = lazyElysiaApp(h.core, undefined, async () => (builds++, h.app));
    expect(builds).toBe(0);
    const responses = await Promise.all([serve(statusRequest()), serve(statusRequest()), serve(statusRequest())]);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
    await serve(statusRequest());
    expect(builds).toBe(1);
  });

  test("a failed build answers a JSON 500 through the pipeline, and the next request builds again", async () => {
    let builds = 0;
    const serve = lazyElysiaApp(h.core, undefined, async (): Promise<AnyElysia> => {
      builds++;
      if (builds === 1) throw new Error("module went missing");
      return h.app;
    });
    const failed = await serve(statusRequest());
    expect(failed.status).toBe(500);
    expect(failed.headers.get("x-request-id")).toBeTruthy();
    const body = (await failed.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("INTERNAL");
    expect(body.error.message).toContain("gateway routes failed to load: module went missing");
    expect((await serve(statusRequest())).status).toBe(200);
    expect(builds).toBe(2);
  });

  test("the failure path still authenticates: no token, 401", async () => {
    const serve = lazyElysiaApp(h.core, undefined, () => Promise.reject(new Error("nope")));
    const response = await serve(new Request("http://localhost/api/status"));
    expect(response.status).toBe(401);
  });
});
