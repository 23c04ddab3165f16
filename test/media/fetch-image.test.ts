/**
 * https image URLs fetched by prx for a provider that cannot fetch them: through the outbound guard, against a real
 * https server on 127.0.0.1 with a certificate for its own name (so the pinned connection is checked against the
 * name), bounded at IMAGE_MAX_BYTES; a failure becomes a note the model reads.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OutboundSchema } from "../../src/config/schema.ts";
import type { ChatMessage } from "../../src/contracts/chat.ts";
import { isPrxError, type PrxError } from "../../src/core/errors.ts";
import type { Resolver } from "../../src/core/outbound/index.ts";
import { fetchImageUrl, IMAGE_MAX_BYTES, imagePolicy, prepareMedia } from "../../src/media/index.ts";
import { png } from "./samples.ts";

const dir = mkdtempSync(join(tmpdir(), "prx-image-tls-"));
let cert = "";
let server: ReturnType<typeof Bun.serve>;
const image = png(40, 30, 900);

beforeAll(async () => {
  const made = Bun.spawnSync([
    "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
    "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-subj", "/CN=images.test", "-addext", "subjectAltName=DNS:images.test",
  ], { stderr: "pipe" });
  if (made.exitCode !== 0) throw new Error(`openssl failed: ${made.stderr.toString()}`);
  cert = readFileSync(join(dir, "cert.pem"), "utf8");
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert, key: readFileSync(join(dir, "key.pem"), "utf8") },
    fetch(request) {
      const url = new URL(request.url);
      switch (url.pathname) {
        case "/cat.png":
          return new Response(image, { headers: { "content-type": "image/png" } });
        case "/at-limit.png":
          return new Response(padded(IMAGE_MAX_BYTES));
        case "/one-past.png":
          return new Response(padded(IMAGE_MAX_BYTES + 1));
        case "/page":
          return new Response("<html>not an image</html>", { headers: { "content-type": "image/png" } });
        case "/to-http":
          return Response.redirect(`http://images.test:${url.port}/cat.png`, 302);
        case "/to-metadata":
          return Response.redirect("https://169.254.169.254/latest/meta-data/", 302);
      }
      return new Response("missing", { status: 404 });
    },
  });
});
afterAll(() => {
  server?.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

function padded(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  bytes.set(image);
  return bytes;
}

const names: Resolver = async (host) => (host.endsWith(".test") ? ["127.0.0.1"] : Promise.reject(new Error(`ENOTFOUND ${host}`)));
const allowed = imagePolicy(OutboundSchema.parse({ allow_addresses: ["127.0.0.1"] }));
const at = (path: string, host = "images.test") => ({ kind: "image" as const, url: `https://${host}:${server.port}${path}` });
const fetchAllowed = (path: string, host?: string) => fetchImageUrl(at(path, host), allowed, { ca: cert, resolver: names });

async function refusal(promise: Promise<unknown>): Promise<PrxError> {
  try {
    await promise;
  } catch (error) {
    if (isPrxError(error)) return error;
    throw error;
  }
  throw new Error("not refused");
}

describe("fetchImageUrl", () => {
  test("by default an image on 127.0.0.1 is refused", async () => {
    const error = await refusal(fetchImageUrl({ kind: "image", url: `https://127.0.0.1:${server.port}/cat.png` }, imagePolicy(OutboundSchema.parse({})), { ca: cert }));
    expect(error.code).toBe("OUTBOUND_DENIED");
    expect(error.message).toContain("loopback");
  });

  test("an allowed image arrives as bytes with its type and size read from them, over a connection checked against its name", async () => {
    const ref = await fetchAllowed("/cat.png");
    expect(ref).toMatchObject({ kind: "image", mime: "image/png", width: 40, height: 30, bytes: image.byteLength });
    expect(Buffer.from(ref.data!, "base64").equals(Buffer.from(image))).toBe(true);
  });

  test("a name the certificate does not cover fails, though it resolves to the same address", async () => {
    const error = await refusal(fetchAllowed("/cat.png", "other.test"));
    expect(error.code).toBe("OUTBOUND_FAILED");
  });

  test("a redirect to http or to the metadata address is refused", async () => {
    expect((await refusal(fetchAllowed("/to-http"))).message).toContain("must stay https");
    expect((await refusal(fetchAllowed("/to-metadata"))).message).toContain("cloud metadata");
  });

  test(`an image of IMAGE_MAX_BYTES passes; one byte more is refused`, async () => {
    expect((await fetchAllowed("/at-limit.png")).bytes).toBe(IMAGE_MAX_BYTES);
    const error = await refusal(fetchAllowed("/one-past.png"));
    expect(error.code).toBe("PAYLOAD_TOO_LARGE");
  }, 60_000);

  test("what is not an image is refused by its bytes, whatever its content type", async () => {
    expect((await refusal(fetchAllowed("/page"))).code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });
});

describe("prepareMedia with fetchUrl", () => {
  const message = (path: string): ChatMessage[] => [{ role: "user", content: "what is this?", media: [at(path)] }];
  const prepare = (messages: ChatMessage[]) =>
    prepareMedia(messages, { vision: true, imageTurns: 4, load: () => null, fetchUrl: (ref) => fetchImageUrl(ref, allowed, { ca: cert, resolver: names }) });

  test("a fetched image goes to the provider as bytes", async () => {
    const [prepared] = await prepare(message("/cat.png"));
    expect(prepared!.media![0]!.data).toBe(Buffer.from(image).toString("base64"));
  });

  test("an image that cannot be fetched becomes a note in the message", async () => {
    const [prepared] = await prepare(message("/to-metadata"));
    expect(prepared!.media).toBeUndefined();
    expect(prepared!.content).toStartWith(`what is this?\n[image: https://images.test:${server.port}/to-metadata; it could not be fetched: redirect from`);
  });

  test("without fetchUrl the URL is passed on", async () => {
    const [prepared] = await prepareMedia(message("/cat.png"), { vision: true, imageTurns: 4, load: () => null });
    expect(prepared!.media![0]).toEqual(at("/cat.png"));
  });
});
