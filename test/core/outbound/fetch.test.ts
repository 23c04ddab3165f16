/**
 * The outbound guard against real servers on loopback: loopback and every other non-public address are refused by
 * default, directly, through DNS and by redirect; one explicitly allowed address is reached (connected to as checked,
 * with the name kept in Host); redirects, bytes and time are bounded at their limits.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { isPrxError, type PrxError } from "../../../src/core/errors.ts";
import { outboundFetch, type OutboundPolicy, type Resolver } from "../../../src/core/outbound/index.ts";

const MAX_BYTES = 1024;
const MAX_REDIRECTS = 3;
let slowTimer: ReturnType<typeof setTimeout> | undefined;

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    const url = new URL(request.url);
    const hop = /^\/chain\/(\d+)$/.exec(url.pathname);
    if (hop) {
      const left = Number(hop[1]);
      return left === 0 ? new Response("end of chain") : Response.redirect(`/chain/${left - 1}`, 302);
    }
    switch (url.pathname) {
      case "/page":
        return new Response("hello from loopback", { headers: { "content-type": "text/plain" } });
      case "/echo":
        return Response.json({ host: request.headers.get("host"), authorization: request.headers.get("authorization") });
      case "/to":
        return new Response(null, { status: 302, headers: { location: url.searchParams.get("u")! } });
      case "/exact":
        return new Response("x".repeat(MAX_BYTES));
      case "/one-past":
        return new Response("x".repeat(MAX_BYTES + 1));
      case "/stalls":
        // the head and a first chunk at once, then nothing: the time bound covers the body too
        return new Response(new ReadableStream({ start: (controller) => controller.enqueue(new TextEncoder().encode("first")) }));
      case "/slow":
        return new Promise<Response>((resolve) => (slowTimer = setTimeout(() => resolve(new Response("late")), 5_000)));
    }
    return new Response("not here", { status: 404 });
  },
});
afterAll(() => {
  clearTimeout(slowTimer);
  server.stop(true);
});

const port = server.port;
const base = `http://127.0.0.1:${port}`;

function policy(overrides: Partial<OutboundPolicy> = {}): OutboundPolicy {
  return { allowPrivate: false, allowAddresses: [], allowHosts: [], denyHosts: [], timeoutMs: 5_000, maxBytes: MAX_BYTES, maxRedirects: MAX_REDIRECTS, ...overrides };
}
const loopbackAllowed = (overrides: Partial<OutboundPolicy> = {}) => policy({ allowAddresses: ["127.0.0.1"], ...overrides });

/** Names of the tests' own, all answering with loopback (as a rebinding or a split-horizon name would). */
const names: Resolver = async (host) => {
  if (host.endsWith(".test")) return host.startsWith("mixed.") ? ["127.0.0.1", "10.0.0.7"] : ["127.0.0.1"];
  throw new Error(`ENOTFOUND ${host}`);
};

async function refusal(promise: Promise<unknown>): Promise<PrxError> {
  try {
    await promise;
  } catch (error) {
    if (isPrxError(error)) return error;
    throw error;
  }
  throw new Error("the fetch was not refused");
}

describe("outbound guard: default policy", () => {
  test("loopback by address is refused, naming the range and how to allow it", async () => {
    const error = await refusal(outboundFetch(`${base}/page`, policy()));
    expect(error.code).toBe("OUTBOUND_DENIED");
    expect(error.message).toContain("127.0.0.1 is a loopback (127.0.0.0/8) address");
    expect(error.hint).toContain("allow_addresses");
  });

  test("a name resolving to loopback is refused after DNS", async () => {
    const error = await refusal(outboundFetch(`http://localhost:${port}/page`, policy()));
    expect(error.code).toBe("OUTBOUND_DENIED");
    expect(error.message).toMatch(/localhost resolves to (127\.0\.0\.1|::1), a loopback/);
  });

  test("[::1], 10.x, 169.254.169.254 and IPv4-mapped loopback are refused before any connection", async () => {
    for (const [url, range] of [
      [`http://[::1]:${port}/page`, "loopback (::1)"],
      ["http://10.1.2.3/", "private (10.0.0.0/8)"],
      ["http://169.254.169.254/latest/meta-data/", "cloud metadata"],
      [`http://[::ffff:127.0.0.1]:${port}/page`, "loopback (127.0.0.0/8)"],
      [`http://2130706433:${port}/page`, "loopback (127.0.0.0/8)"],
      [`http://0x7f.1:${port}/page`, "loopback (127.0.0.0/8)"],
    ] as const) {
      const error = await refusal(outboundFetch(url, policy()));
      expect([url, error.code, error.message.includes(range)]).toEqual([url, "OUTBOUND_DENIED", true]);
    }
  });

  test("a name with any non-public address is refused as a whole", async () => {
    const error = await refusal(outboundFetch(`http://mixed.test:${port}/page`, loopbackAllowed(), {}, names));
    expect(error.message).toContain("mixed.test resolves to 10.0.0.7");
  });

  test("only http and https, and no user:password@", async () => {
    expect((await refusal(outboundFetch("file:///etc/passwd", policy()))).message).toContain("file: URLs are not fetched");
    expect((await refusal(outboundFetch("ftp://example.com/", policy()))).code).toBe("OUTBOUND_DENIED");
    expect((await refusal(outboundFetch(`http://user:pw@127.0.0.1:${port}/`, loopbackAllowed()))).message).toContain("user name or password");
  });
});

describe("outbound guard: one allowed address", () => {
  test("the allowed address is fetched", async () => {
    const response = await outboundFetch(`${base}/page`, loopbackAllowed());
    expect([response.status, new TextDecoder().decode(response.bytes), response.truncated]).toEqual([200, "hello from loopback", false]);
  });

  test("a name is connected to at its checked address with the name kept in Host", async () => {
    const response = await outboundFetch(`http://docs.test:${port}/echo`, loopbackAllowed(), {}, names);
    expect(JSON.parse(new TextDecoder().decode(response.bytes)).host).toBe(`docs.test:${port}`);
  });

  test("a redirect to 10.x, 169.254.169.254, [::1] or another loopback address is refused", async () => {
    for (const target of ["http://10.0.0.1/", "http://169.254.169.254/latest/meta-data/", `http://[::1]:${port}/page`, `http://127.0.0.2:${port}/page`]) {
      const error = await refusal(outboundFetch(`${base}/to?u=${encodeURIComponent(target)}`, loopbackAllowed()));
      expect([target, error.code, error.message.startsWith(`redirect from ${base}/to`)]).toEqual([target, "OUTBOUND_DENIED", true]);
    }
  });

  test(`redirects: ${MAX_REDIRECTS} are followed, one more is refused`, async () => {
    const atLimit = await outboundFetch(`${base}/chain/${MAX_REDIRECTS}`, loopbackAllowed());
    expect(new TextDecoder().decode(atLimit.bytes)).toBe("end of chain");
    expect(atLimit.redirects.length).toBe(MAX_REDIRECTS);
    const error = await refusal(outboundFetch(`${base}/chain/${MAX_REDIRECTS + 1}`, loopbackAllowed()));
    expect(error.message).toContain(`more than ${MAX_REDIRECTS} redirects`);
  });

  test("a body of maxBytes is whole; one byte more is cut at maxBytes", async () => {
    const exact = await outboundFetch(`${base}/exact`, loopbackAllowed());
    expect([exact.bytes.byteLength, exact.truncated]).toEqual([MAX_BYTES, false]);
    const past = await outboundFetch(`${base}/one-past`, loopbackAllowed());
    expect([past.bytes.byteLength, past.truncated]).toEqual([MAX_BYTES, true]);
  });

  test("a server slower than timeoutMs is a timeout", async () => {
    const error = await refusal(outboundFetch(`${base}/slow`, loopbackAllowed({ timeoutMs: 100 })));
    expect(error.code).toBe("OUTBOUND_TIMEOUT");
    expect(error.message).toContain("100 ms");
  });

  test("IPv6: an allowed ::1 (in any spelling) is connected to in brackets, the name kept in Host", async () => {
    const v6 = Bun.serve({ hostname: "::1", port: 0, fetch: (request) => new Response(`v6 ${request.headers.get("host")}`) });
    try {
      const byAddress = await outboundFetch(`http://[::1]:${v6.port}/`, policy({ allowAddresses: ["0:0::1"] }));
      expect(new TextDecoder().decode(byAddress.bytes)).toBe(`v6 [::1]:${v6.port}`);
      const byName = await outboundFetch(`http://six.test:${v6.port}/`, policy({ allowAddresses: ["::1"] }), {}, async () => ["::1"]);
      expect(new TextDecoder().decode(byName.bytes)).toBe(`v6 six.test:${v6.port}`);
    } finally {
      v6.stop(true);
    }
  });

  test("a body that stalls is a timeout too", async () => {
    const error = await refusal(outboundFetch(`${base}/stalls`, loopbackAllowed({ timeoutMs: 200 })));
    expect(error.code).toBe("OUTBOUND_TIMEOUT");
  });

  test("allowPrivate reaches every non-public address", async () => {
    const response = await outboundFetch(`${base}/page`, policy({ allowPrivate: true }));
    expect(response.status).toBe(200);
  });
});

describe("outbound guard: host lists", () => {
  test("deny_hosts refuses a name and its pattern's subdomains, also by redirect", async () => {
    const denied = loopbackAllowed({ denyHosts: ["*.bad.test", "worse.test"] });
    expect((await refusal(outboundFetch(`http://x.bad.test:${port}/page`, denied, {}, names))).message).toContain("deny_hosts");
    expect((await refusal(outboundFetch(`http://WORSE.test.:${port}/page`, denied, {}, names))).message).toContain("deny_hosts");
    const redirected = await refusal(outboundFetch(`http://ok.test:${port}/to?u=${encodeURIComponent(`http://a.bad.test:${port}/page`)}`, denied, {}, names));
    expect(redirected.message).toContain("redirect from");
    expect((await outboundFetch(`http://bad.test:${port}/page`, denied, {}, names)).status).toBe(200);
  });

  test("allow_hosts admits only its names", async () => {
    const only = loopbackAllowed({ allowHosts: ["good.test"] });
    expect((await outboundFetch(`http://good.test:${port}/page`, only, {}, names)).status).toBe(200);
    expect((await refusal(outboundFetch(`http://other.test:${port}/page`, only, {}, names))).message).toContain("not in [tools.outbound] allow_hosts");
  });

  test("credentials are not carried to another origin by a redirect", async () => {
    const to = encodeURIComponent(`http://other.test:${port}/echo`);
    const response = await outboundFetch(`http://first.test:${port}/to?u=${to}`, loopbackAllowed(), { headers: { authorization: "Bearer secret" } }, names);
    expect(JSON.parse(new TextDecoder().decode(response.bytes))).toEqual({ host: `other.test:${port}`, authorization: null });
    const same = await outboundFetch(`${base}/to?u=%2Fecho`, loopbackAllowed(), { headers: { authorization: "Bearer secret" } });
    expect(JSON.parse(new TextDecoder().decode(same.bytes)).authorization).toBe("Bearer secret");
  });
});
