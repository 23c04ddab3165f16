import type { OutboundConfig } from "../config/schema.ts";
import type { MediaRef } from "../contracts/chat.ts";
import { PrxError } from "../core/errors.ts";
import { OUTBOUND_MAX_REDIRECTS, outboundFetch, type OutboundPolicy, type Resolver } from "../core/outbound/index.ts";
import { imageFromBytes } from "./ingest.ts";
import { IMAGE_FETCH_TIMEOUT_MS, IMAGE_MAX_BYTES } from "./limits.ts";

/** The outbound guard's policy for image URLs: [tools.outbound]'s addresses and hosts, the image limits. */
export function imagePolicy(outbound: OutboundConfig): OutboundPolicy {
  return {
    allowPrivate: outbound.allow_private,
    allowAddresses: outbound.allow_addresses,
    allowHosts: outbound.allow_hosts,
    denyHosts: outbound.deny_hosts,
    timeoutMs: IMAGE_FETCH_TIMEOUT_MS,
    // one byte past the limit tells a too-large image from one exactly at it
    maxBytes: IMAGE_MAX_BYTES + 1,
    maxRedirects: OUTBOUND_MAX_REDIRECTS,
  };
}

function httpsOnly(url: URL): void {
  if (url.protocol !== "https:") {
    throw new PrxError("OUTBOUND_DENIED", `an image URL must stay https, not ${url.protocol} (${url.href})`);
  }
}

/**
 * An https image URL fetched by prx, for a provider that cannot fetch URLs itself: through the outbound guard (no
 * private, loopback or link-local addresses; every redirect re-checked and kept https), bounded by
 * IMAGE_FETCH_TIMEOUT_MS and IMAGE_MAX_BYTES; the type read from the bytes.
 */
export async function fetchImageUrl(ref: MediaRef, policy: OutboundPolicy, options: { signal?: AbortSignal; ca?: string; resolver?: Resolver } = {}): Promise<MediaRef> {
  const url = ref.url!;
  const response = await outboundFetch(
    url,
    policy,
    { headers: { accept: "image/png, image/jpeg, image/gif, image/webp" }, check: httpsOnly, signal: options.signal, ca: options.ca },
    options.resolver,
  );
  if (response.status < 200 || response.status >= 300) {
    throw new PrxError("OUTBOUND_FAILED", `${response.url} answered HTTP ${response.status}`);
  }
  const fetched = imageFromBytes(response.bytes, { where: `the image at ${response.url}`, ...(ref.detail ? { detail: ref.detail } : {}) });
  // the bytes go to the provider; the hash is not kept (an https image is not stored)
  const { sha256: _sha256, ...image } = fetched;
  return image;
}
