/** A clock and a one-shot timer: the real ones at runtime, a hand-driven pair in tests. */
export interface Timer {
  now(): number;
  /** Run `run` once, `ms` from now; the returned function cancels it. */
  after(ms: number, run: () => void): () => void;
}

/** What the gateway knows of a request beyond the Request itself, from the moment its headers arrived. */
export interface RequestFacts {
  /** The client's address as its socket gave it. */
  readonly peer: string;
  /** When a body not fully arrived by then is refused (the timer's clock, ms); null when the request has no body. */
  readonly bodyDeadlineAt: number | null;
  readonly timer: Timer;
  /** The body was read to its end (body.ts sets it); until then the answer closes the connection. */
  bodyRead: boolean;
}

/** The parts of Bun's server the front uses. */
export interface FrontServer {
  requestIP(request: Request): { address: string } | null;
  timeout(request: Request, seconds: number): void;
  readonly port: number | undefined;
  readonly url: URL;
}

/** Which connection cap a request would pass: its client address's, or the gateway's in all. */
export type CapReached = "address" | "total";
