import type { Logger } from "../core/logger.ts";
import { Backoff, sleep } from "../core/supervise/index.ts";
import { PLATFORM_BACKOFF } from "./limits.ts";

export interface ReconnectOptions {
  /** What the platform is called in the log ("Mattermost WebSocket", "IRC connection"). */
  what: string;
  /** One connection: resolves with why it ended; calls `connected` once it is (the backoff starts over then). */
  connection(connected: () => void): Promise<string>;
  /** Told why the connection ended, before the wait (the adapter's health). */
  onEnded(why: string): void;
  logger: Logger;
  signal: AbortSignal;
}

/** A connection kept open: each one that ends is opened again after the platform backoff, until `signal` aborts. */
export async function keepConnected(o: ReconnectOptions): Promise<void> {
  const backoff = new Backoff(PLATFORM_BACKOFF);
  while (!o.signal.aborted) {
    const why = await o.connection(() => backoff.reset());
    if (o.signal.aborted) return;
    const wait = backoff.next();
    o.onEnded(why);
    o.logger.warn(`${o.what} ended (${why}); reconnecting in ${wait} ms`);
    await sleep(wait, o.signal).catch(() => undefined);
  }
}
