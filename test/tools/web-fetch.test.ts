/**
 * web_fetch against pages served on 127.0.0.1: refused by default (directly, through DNS, by redirect), read as text
 * only when [tools.outbound] allow_addresses names loopback; HTML becomes Markdown-like text, limits hold at the edge.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { ToolsSchema } from "../../src/config/schema.ts";
import { createWebFetchTool, ToolRegistry, WEB_FETCH_MAX_CHARS } from "../../src/tools/index.ts";

const ARTICLE = `<!doctype html><html><head><title>The &amp; Title</title><style>.x { color: red }</style>
<script>alert("boo")</script></head><body><nav><a href="/home">Home</a></nav><h1>Main heading</h1>
<p>First paragraph with <a href="https://example.com/more">a link</a>.</p><h2>Numbers</h2>
<table><tr><th>name</th><th>value</th></tr><tr><td>pi</td><td>3.14</td></tr></table>
<ul><li>one</li><li>two</li></ul><img alt="a dot" src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="><script>document.write("injected")</script><noscript>enable js</noscript></body></html>`;
const TEXT = "0123456789".repeat(10);

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    const url = new URL(request.url);
    switch (url.pathname) {
      case "/article":
        return new Response(ARTICLE, { headers: { "content-type": "text/html; charset=utf-8" } });
      case "/latin1":
        return new Response(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), { headers: { "content-type": "text/plain; charset=iso-8859-1" } });
      case "/text":
        return new Response(TEXT, { headers: { "content-type": "text/plain" } });
      case "/exact":
        return new Response("e".repeat(1024), { headers: { "content-type": "text/plain" } });
      case "/one-past":
        return new Response("e".repeat(1025), { headers: { "content-type": "text/plain" } });
      case "/data":
        return Response.json({ a: 1, list: [true] });
      case "/paper.pdf":
        return new Response("%PDF-1.7", { headers: { "content-type": "application/pdf" } });
      case "/image":
        return new Response(new Uint8Array([0x89, 0x50, 0x4e, 0x47]), { headers: { "content-type": "image/png" } });
      case "/gone":
        return new Response("<p>no such page</p>", { status: 404, headers: { "content-type": "text/html" } });
      case "/to":
        return new Response(null, { status: 301, headers: { location: url.searchParams.get("u")! } });
    }
    return new Response("unexpected", { status: 500 });
  },
});
afterAll(() => server.stop(true));

const base = `http://127.0.0.1:${server.port}`;
const context = { sessionId: "s", workspace: "/nonexistent", signal: new AbortController().signal };

function registry(outbound: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return new ToolRegistry({ builtins: [createWebFetchTool(ToolsSchema.parse({ outbound, ...extra }))] });
}
const loopback = () => registry({ allow_addresses: ["127.0.0.1"] });
const fetchWith = (tools: ToolRegistry, args: Record<string, unknown>) => tools.call("web_fetch", JSON.stringify(args), context);

describe("web_fetch: the outbound guard", () => {
  test("by default a page on 127.0.0.1, localhost, [::1], 10.x or 169.254.169.254 is refused", async () => {
    for (const url of [`${base}/article`, `http://localhost:${server.port}/article`, `http://[::1]:${server.port}/article`, "http://10.0.0.8/", "http://169.254.169.254/latest/meta-data/"]) {
      const result = await fetchWith(registry(), { url });
      expect([url, result.success, result.error?.includes("address, which is refused")]).toEqual([url, false, true]);
    }
  });

  test("with loopback allowed, a redirect to 10.x, 169.254.169.254 or [::1] is still refused", async () => {
    for (const target of ["http://10.0.0.8/", "http://169.254.169.254/latest/meta-data/", `http://[::1]:${server.port}/article`]) {
      const result = await fetchWith(loopback(), { url: `${base}/to?u=${encodeURIComponent(target)}` });
      expect([target, result.success, result.error?.includes("redirect from")]).toEqual([target, false, true]);
    }
  });

  test("deny_hosts wins over an allowed address", async () => {
    const result = await fetchWith(registry({ allow_addresses: ["127.0.0.1"], deny_hosts: ["127.0.0.1"] }), { url: `${base}/article` });
    expect(result.error).toContain("deny_hosts");
  });
});

describe("web_fetch: readable text", () => {
  test("HTML: title, headings, paragraphs, links and tables as Markdown; scripts and styles dropped", async () => {
    const result = await fetchWith(loopback(), { url: `${base}/article` });
    expect(result.success).toBe(true);
    const text = result.output;
    expect(text).toStartWith(`URL: ${base}/article\nTitle: The & Title\n`);
    expect(text).toContain("# Main heading");
    expect(text).toContain("## Numbers");
    expect(text).toContain("First paragraph with [a link](https://example.com/more).");
    expect(text).toContain("| name | value |");
    expect(text).toContain("| pi   | 3.14  |");
    expect(text).toContain(`[Home](${base}/home)`);
    // inline data: images (kilobytes of base64) are left out by the converter
    for (const dropped of ["alert", "color: red", "injected", "enable js", "base64"]) expect(text).not.toContain(dropped);
  });

  test("text in its declared charset, JSON indented", async () => {
    expect((await fetchWith(loopback(), { url: `${base}/latin1` })).output).toEndWith("\ncafé");
    expect((await fetchWith(loopback(), { url: `${base}/data` })).output).toContain('{\n  "a": 1,\n  "list": [\n    true\n  ]\n}');
  });

  test("PDF and images are refused with what it reads", async () => {
    expect((await fetchWith(loopback(), { url: `${base}/paper.pdf` })).error).toContain("PDF pages are not read");
    expect((await fetchWith(loopback(), { url: `${base}/image` })).error).toContain("content type image/png is not read");
  });

  test("an HTTP error is an error result that carries the page", async () => {
    const result = await fetchWith(loopback(), { url: `${base}/gone` });
    expect([result.success, result.error?.includes("HTTP 404"), result.output.includes("no such page")]).toEqual([false, true, true]);
  });

  test("max_chars equal to the text returns it whole; one less cuts it and says so", async () => {
    const whole = await fetchWith(loopback(), { url: `${base}/text`, max_chars: TEXT.length });
    expect(whole.output).toBe(`URL: ${base}/text\n\n${TEXT}`);
    const cut = await fetchWith(loopback(), { url: `${base}/text`, max_chars: TEXT.length - 1 });
    expect(cut.output).toContain(`${TEXT.slice(0, -1)}\n\n[cut at ${TEXT.length - 1} of ${TEXT.length} characters`);
  });

  test("a page of http_max_response_bytes is read whole; one byte more is read that far and says so", async () => {
    const small = registry({ allow_addresses: ["127.0.0.1"] }, { http_max_response_bytes: 1024 });
    const exact = await fetchWith(small, { url: `${base}/exact` });
    expect(exact.output).toBe(`URL: ${base}/exact\n\n${"e".repeat(1024)}`);
    const past = await fetchWith(small, { url: `${base}/one-past` });
    expect(past.output).toContain(`${"e".repeat(1024)}\n\n[the page was larger than tools.http_max_response_bytes`);
  });

  test(`its schema is checked at the boundary: max_chars ${WEB_FETCH_MAX_CHARS} passes, one more and 0 are refused`, async () => {
    expect((await fetchWith(loopback(), { url: `${base}/text`, max_chars: WEB_FETCH_MAX_CHARS })).success).toBe(true);
    for (const args of [{ url: `${base}/text`, max_chars: WEB_FETCH_MAX_CHARS + 1 }, { url: `${base}/text`, max_chars: 0 }, { url: "" }, { url: `${base}/text`, method: "POST" }]) {
      const result = await fetchWith(loopback(), args);
      expect([result.success, result.error?.startsWith("invalid arguments for web_fetch")]).toEqual([false, true]);
    }
  });
});
