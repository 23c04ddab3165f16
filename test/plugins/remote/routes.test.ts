/**
 * Route handlers get an Express-compatible req (body parsed by content type, params, query, headers, url, multipart
 * files) and res (status, json, send, end, setHeader/getHeader, writeHead/write, sendFile confined to the plugin's
 * folder, redirect, headersSent), over both transports, with the answer bounded.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { REMOTE_ROUTE_MAX_RESPONSE_BYTES } from "../../../src/plugins/remote/limits.ts";
import type { RemotePluginHandle } from "../../../src/plugins/remote/index.ts";
import { hostFixture, startProbe, type Transport } from "./helpers.ts";

const host = hostFixture();
afterAll(() => host.close());

for (const transport of ["worker", "process"] as Transport[]) {
  describe(`routes over ${transport}`, () => {
    let handle: RemotePluginHandle;
    beforeAll(async () => void (handle = await startProbe(host, transport)));
    afterAll(() => handle.shutdown());

    const route = (method: string, path: string, init: RequestInit = {}) =>
      handle.handleRoute(method, path.split("?")[0]!, new Request(`http://h/plugins/probe${path}`, { method, ...init }));

    test("bodies are parsed by content type: JSON, urlencoded form, text, anything else as bytes", async () => {
      const post = (body: string | Uint8Array, type: string) =>
        route("POST", "/inspect/x?a=1&a=2&b=3", { body, headers: { "content-type": type } }).then((r) => r.json() as Promise<Record<string, unknown>>);
      expect(await post('{"n":1}', "application/json")).toEqual({
        kind: "x",
        url: "/inspect/x?a=1&a=2&b=3",
        query: { a: ["1", "2"], b: "3" },
        type: "application/json",
        body: { n: 1 },
      });
      expect((await post("name=ada&tag=a&tag=b", "application/x-www-form-urlencoded")).body).toEqual({ name: "ada", tag: ["a", "b"] });
      expect((await post("plain words", "text/plain; charset=utf-8")).body).toBe("plain words");
      expect((await post(new Uint8Array([0, 255, 7]), "application/octet-stream")).body).toEqual({ bytes: [0, 255, 7] });
    });

    test("a body left unparsed is readable from req as a stream; a handler answering after it returned is awaited", async () => {
      const form = new FormData();
      form.append("note", "kept whole");
      const multipart = new Response(form);
      const type = multipart.headers.get("content-type")!;
      const bytes = await multipart.text();
      const answered = await route("POST", "/later", { body: bytes, headers: { "content-type": type } });
      expect(answered.status).toBe(201);
      expect(((await answered.json()) as { read: string }).read).toBe(bytes);
      const raw = await route("POST", "/later", { body: new Uint8Array([104, 105]), headers: { "content-type": "application/octet-stream" } });
      expect(await raw.json()).toEqual({ read: "hi" });
    });

    test("multipart/form-data on an isMultipart route: fields in body, files with their bytes in files", async () => {
      const form = new FormData();
      form.set("title", "notes");
      form.set("doc", new File(["hello file"], "hello.txt", { type: "text/plain" }));
      const response = await route("POST", "/upload", { body: form });
      expect(response.status).toBe(201);
      expect(await response.json()).toEqual({
        fields: { title: "notes" },
        files: [{ field: "doc", name: "hello.txt", type: expect.stringMatching(/^text\/plain/), size: 10, text: "hello file" }],
      });
    });

    test("writeHead, write and a later end are answered together; headersSent follows; getHeader reads back", async () => {
      const streamed = await route("GET", "/stream");
      expect(streamed.status).toBe(200);
      expect(streamed.headers.get("content-type")).toBe("text/plain");
      expect(streamed.headers.get("x-sent-before")).toBe("false");
      expect(await streamed.text()).toBe("one,two,three");
      const headers = await route("GET", "/headers");
      expect(headers.headers.get("x-a")).toBe("1");
      expect(await headers.text()).toBe("a=1");
    });

    test("sendFile serves a file inside the plugin's folder; a path outside it is a 404, never the file", async () => {
      const file = await route("GET", "/file/probe.ts");
      expect(file.status).toBe(200);
      expect(await file.text()).toContain("Test plugin exercising every surface");
      const escape = await route("GET", "/file/..%2F..%2F..%2F..%2Fpackage.json");
      expect(escape.status).toBe(404);
      expect(JSON.stringify(await escape.json())).toContain("inside the plugin's folder only");
      const absolute = await route("GET", `/abs-file?path=${encodeURIComponent("/etc/hostname")}`);
      expect(absolute.status).toBe(404);
    });

    test("redirect answers 302 with the location", async () => {
      const response = await route("GET", "/go");
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toBe("/plugins/probe/items/1");
    });

    test(`an answer of ${REMOTE_ROUTE_MAX_RESPONSE_BYTES} bytes passes; one byte more is refused naming the limit`, async () => {
      const at = await route("GET", `/huge?size=${REMOTE_ROUTE_MAX_RESPONSE_BYTES}`);
      expect(at.status).toBe(200);
      expect((await at.arrayBuffer()).byteLength).toBe(REMOTE_ROUTE_MAX_RESPONSE_BYTES);
      const over = await route("GET", `/huge?size=${REMOTE_ROUTE_MAX_RESPONSE_BYTES + 1}`);
      expect(over.status).toBe(413);
      expect(JSON.stringify(await over.json())).toContain(`exceeds ${REMOTE_ROUTE_MAX_RESPONSE_BYTES} bytes`);
    });
  });
}

describe("route paths", () => {
  test("a last segment * takes the rest of the path as params[0]; fixed segments must match", async () => {
    const { matchRoute } = await import("../../../src/plugins/remote/routes.ts");
    const routes = [{ type: "GET" as const, path: "/assets/*", handler: { rpc: true as const, id: "route:GET /assets/*" } }];
    expect(matchRoute(routes, "GET", "/assets/css/a%20b.css")?.params).toEqual({ "0": "css/a b.css" });
    expect(matchRoute(routes, "GET", "/assets")).toBeNull();
    expect(matchRoute(routes, "GET", "/other/x")).toBeNull();
  });
});
