export type { OutboundPolicy, OutboundRequest, OutboundResponse, Resolved, Resolver } from "./types.ts";
export { ALLOW_PRIVATE_HINT, checkUrl, outboundFetch, resolveChecked } from "./fetch.ts";
export { blockedRange, ipLiteral } from "./address.ts";
export { hostMatches } from "./hosts.ts";
export { OUTBOUND_MAX_REDIRECTS } from "./limits.ts";
