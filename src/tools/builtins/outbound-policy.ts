import type { ToolsConfig } from "../../config/schema.ts";
import { OUTBOUND_MAX_REDIRECTS, type OutboundPolicy } from "../../core/outbound/index.ts";

/** The outbound guard's policy for a tool's fetch: [tools.outbound] with the http_* time and size limits. */
export function toolOutboundPolicy(config: ToolsConfig): OutboundPolicy {
  return {
    allowPrivate: config.outbound.allow_private,
    allowAddresses: config.outbound.allow_addresses,
    allowHosts: config.outbound.allow_hosts,
    denyHosts: config.outbound.deny_hosts,
    timeoutMs: config.http_timeout_ms,
    maxBytes: config.http_max_response_bytes,
    maxRedirects: OUTBOUND_MAX_REDIRECTS,
  };
}
