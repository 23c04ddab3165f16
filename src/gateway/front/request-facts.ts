import type { RequestFacts, Timer } from "./types.ts";

/** What the access log and the limits call a request without a socket (handed to app.handle directly). */
export const LOCAL_CLIENT = "local";

/** The real clock and timer. */
export const REAL_TIMER: Timer = {
  now: () => Date.now(),
  after(ms, run) {
    const timer = setTimeout(run, ms);
    return () => clearTimeout(timer);
  },
};

const facts = new WeakMap<Request, RequestFacts>();

export function recordFacts(request: Request, known: RequestFacts): void {
  facts.set(request, known);
}

/** The facts the front recorded for `request`; none for a request that did not come through a socket. */
export function factsOf(request: Request): RequestFacts | undefined {
  return facts.get(request);
}

/** The client's address the socket gave, even when the app sees a rebuilt Request. */
export function peerOf(request: Request): string | undefined {
  return facts.get(request)?.peer;
}
