import type { BackoffOptions } from "../../core/supervise/index.ts";
import type { Logger } from "../../core/logger.ts";

/** The part of Bun's RedisClient a supervised connection uses (tests give fakes). */
export interface RedisClientLike {
  connect(): Promise<unknown>;
  send(command: string, args: string[]): Promise<unknown>;
  subscribe(channel: string, listener: (message: string, channel: string) => void): Promise<unknown>;
  close(): void;
  readonly connected: boolean;
  onclose: ((this: unknown, error: Error) => void) | null;
}

export interface SupervisedRedisOptions {
  url: string;
  /** What the connection is for, in errors and logs ("shared rate limits and pairing"). */
  purpose: string;
  logger: Logger;
  /** A new client for `url` (default Bun's RedisClient, reconnection and offline queue off: this wrapper owns both). */
  client?: (url: string) => RedisClientLike;
  /** Waits between reconnection attempts; resolves early when the signal aborts (tests pass a clock they move). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Default REDIS_RECONNECT_BASE_MS doubling to REDIS_RECONNECT_MAX_MS, with jitter. */
  backoff?: BackoffOptions;
  commandTimeoutMs?: number;
  connectTimeoutMs?: number;
  /** Called each time a lost connection is made again (its subscriptions renewed): what was sent meanwhile is lost. */
  onRestored?: () => void;
}

/** How a supervised connection is doing, for /health and the status routes. */
export interface RedisLinkStatus {
  state: "up" | "reconnecting" | "closed";
  /** Connections made again after one was lost. */
  reconnects: number;
  /** Failed reconnection attempts since the connection was lost (0 while up). */
  attempts: number;
  lastError: string | null;
}
