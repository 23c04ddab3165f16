/** What stands between a socket and the app: connection caps, a request's facts, its body deadline, a routable URL. */
export { guardedFetch, type FrontFetch } from "./guard.ts";
export { ConnectionCaps } from "./connection-caps.ts";
export { factsOf, peerOf, LOCAL_CLIENT, REAL_TIMER } from "./request-facts.ts";
export { bodyTooSlow, withinBodyDeadline } from "./body-deadline.ts";
export { pathOf, routableUrl } from "./request-url.ts";
export type { CapReached, FrontServer, RequestFacts, Timer } from "./types.ts";
