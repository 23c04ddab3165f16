/** Where an outbound fetch may go and how much of it is read. */
export interface OutboundPolicy {
  /**
   * Reach private, loopback, link-local, metadata and other non-public addresses. Off by default: only a user's
   * explicit setting (or a test) turns it on.
   */
  allowPrivate: boolean;
  /**
   * Single IP addresses reached even though they are not public (`127.0.0.1`, `::1`), for one service of your own
   * (and for tests); every other non-public address stays refused.
   */
  allowAddresses: readonly string[];
  /** Host names allowed (`example.com`, `*.example.com` for its subdomains); empty allows every public host. */
  allowHosts: readonly string[];
  /** Host names refused, in the same form; a match wins over allowHosts. */
  denyHosts: readonly string[];
  /** The whole fetch, every redirect and the body included. */
  timeoutMs: number;
  /** Body bytes read (after decompression); the rest is left unread. */
  maxBytes: number;
  /** Redirect hops followed, each one checked as the first URL was. */
  maxRedirects: number;
}

/** One resolved host name: the addresses it has, all of them checked, and the one connected to. */
export interface Resolved {
  host: string;
  addresses: readonly string[];
  pinned: string;
}

/** Turns a host name into its addresses (node:dns lookup with all: true by default; tests may give their own). */
export type Resolver = (host: string) => Promise<readonly string[]>;

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** A caller's own rule for each URL (the first and every redirect), after the policy's: throws a PrxError to refuse. */
  check?: (url: URL) => void;
  /** For a test's self-signed certificate: the CA to trust besides the system's. */
  ca?: string;
}

export interface OutboundResponse {
  status: number;
  /** The URL that answered, after redirects. */
  url: string;
  headers: Headers;
  bytes: Uint8Array;
  /** The body went on past policy.maxBytes and was cut there. */
  truncated: boolean;
  /** URLs redirected through, in order. */
  redirects: readonly string[];
}
