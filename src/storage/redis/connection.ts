import { RedisClient } from "bun";
import { errorMessage, PrxError } from "../../core/errors.ts";
import { Backoff, sleep as abortableSleep, waitAtMost } from "../../core/supervise/index.ts";
import { REDIS_COMMAND_TIMEOUT_MS, REDIS_CONNECT_TIMEOUT_MS, REDIS_RECONNECT_BASE_MS, REDIS_RECONNECT_MAX_MS } from "./limits.ts";
import type { RedisClientLike, RedisLinkStatus, SupervisedRedisOptions } from "./types.ts";

function bunClient(url: string): RedisClientLike {
  // Bun's own reconnection gives up after maxRetries and then fails every command until a restart, and its offline
  // queue holds commands for the whole outage: both are off, the reconnection is SupervisedRedis's.
  return new RedisClient(url, {
    autoReconnect: false,
    enableOfflineQueue: false,
    connectionTimeout: REDIS_CONNECT_TIMEOUT_MS,
  }) as unknown as RedisClientLike;
}

/**
 * One Redis connection that stays usable through outages: lost, it is made again forever with a bounded backoff
 * (subscriptions included); meanwhile every command fails at once with BUS, and no command waits for Redis longer
 * than the command timeout (a command not answered in time drops the connection, which is then made again).
 * Every user of Redis in prx goes through one of these.
 */
export class SupervisedRedis {
  private current: RedisClientLike | null = null;
  private readonly backoff: Backoff;
  private readonly stop = new AbortController();
  private readonly subscriptions = new Map<string, (message: string) => void>();
  private readonly makeClient: (url: string) => RedisClientLike;
  private readonly wait: (ms: number, signal: AbortSignal) => Promise<void>;
  private reconnecting = false;
  private status: RedisLinkStatus = { state: "reconnecting", reconnects: 0, attempts: 0, lastError: null };

  constructor(private readonly options: SupervisedRedisOptions) {
    this.makeClient = options.client ?? bunClient;
    this.wait = options.sleep ?? abortableSleep;
    this.backoff = new Backoff(options.backoff ?? { baseMs: REDIS_RECONNECT_BASE_MS, maxMs: REDIS_RECONNECT_MAX_MS, jitter: true });
  }

  /** Connect the first time; a Redis that does not answer fails the start (BUS) rather than a later request. */
  async open(): Promise<void> {
    const client = this.makeClient(this.options.url);
    try {
      await this.connect(client);
    } catch (cause) {
      client.close();
      throw new PrxError("BUS", `cannot connect to Redis for ${this.options.purpose}: ${errorMessage(cause)}`, {
        cause,
        hint: "check the URL in [bus] url_env and that Redis is running",
      });
    }
    this.attach(client);
  }

  /**
   * Connect, or when Redis does not answer now, go on without it and keep trying (as after an outage): for a user
   * that starts after the gateway already checked Redis, and must not stay down for a failure at that moment.
   */
  async openOrRetry(): Promise<void> {
    try {
      await this.open();
    } catch (error) {
      this.lost(error);
    }
  }

  get connected(): boolean {
    return this.current !== null;
  }

  snapshot(): RedisLinkStatus {
    return { ...this.status };
  }

  /** One command, answered within the command timeout; BUS at once while Redis is away. */
  async send(command: string, args: string[]): Promise<unknown> {
    const client = this.current;
    if (!client) throw this.unavailable();
    const timeoutMs = this.options.commandTimeoutMs ?? REDIS_COMMAND_TIMEOUT_MS;
    let answer: unknown;
    const sent = client.send(command, args).then((value) => void (answer = value));
    let answered: boolean;
    try {
      answered = await waitAtMost(sent, timeoutMs);
    } catch (cause) {
      // a connection that failed under this command may not have said so through onclose
      if (!client.connected) this.drop(client, cause);
      throw new PrxError("BUS", `Redis ${command} failed (${this.options.purpose}): ${errorMessage(cause)}`, { cause, status: 503 });
    }
    if (!answered) {
      sent.catch(() => undefined); // a late failure of a command already reported as timed out
      // A Redis that holds a command this long is treated as gone (frozen, or the network path is): the commands
      // after this one fail at once until a new connection answers, instead of each waiting out the timeout.
      this.drop(client, new Error(`no answer to ${command} within ${timeoutMs} ms`));
      throw new PrxError("BUS", `Redis did not answer ${command} within ${timeoutMs} ms (${this.options.purpose})`, {
        status: 503,
        hint: "check that Redis is running and not overloaded; prx goes on without it where it can",
      });
    }
    return answer;
  }

  /**
   * Subscribe, now and again on every new connection (this connection is then for subscriptions only); while Redis
   * is away, from the next connection on.
   */
  async subscribe(channel: string, handler: (message: string) => void): Promise<void> {
    this.subscriptions.set(channel, handler);
    const client = this.current;
    if (client) await client.subscribe(channel, (message) => handler(message));
  }

  close(): void {
    this.status.state = "closed";
    this.stop.abort();
    const client = this.current;
    this.current = null;
    client?.close();
  }

  private unavailable(): PrxError {
    const why = this.status.lastError ? `: ${this.status.lastError}` : "";
    return new PrxError("BUS", `Redis is unreachable (${this.options.purpose}); reconnecting${why}`, {
      status: 503,
      hint: "check that Redis is running; prx reconnects by itself",
    });
  }

  private async connect(client: RedisClientLike): Promise<void> {
    const timeoutMs = this.options.connectTimeoutMs ?? REDIS_CONNECT_TIMEOUT_MS;
    const connecting = client.connect();
    if (!(await waitAtMost(connecting, timeoutMs))) {
      connecting.catch(() => undefined); // the client is closed by the caller; its late failure says nothing new
      throw new Error(`no connection within ${timeoutMs} ms`);
    }
  }

  /** Give up the live connection `client` (once, whoever notices first) and make a new one. */
  private drop(client: RedisClientLike, why: unknown): void {
    if (this.current !== client) return;
    this.current = null;
    client.close();
    this.lost(why);
  }

  private attach(client: RedisClientLike): void {
    client.onclose = (error: Error) => this.drop(client, error);
    this.current = client;
    this.status = { ...this.status, state: "up", attempts: 0 };
  }

  private lost(error: unknown): void {
    if (this.stop.signal.aborted) return;
    this.status = { ...this.status, state: "reconnecting", lastError: errorMessage(error) };
    this.options.logger.warn(`Redis connection lost (${this.options.purpose}); reconnecting`, { error: errorMessage(error) });
    if (this.reconnecting) return;
    this.reconnecting = true;
    this.reconnect().catch((failure: unknown) => {
      this.reconnecting = false;
      this.options.logger.error(`Redis reconnection stopped (${this.options.purpose}): ${errorMessage(failure)}`);
    });
  }

  /** Try again after each backoff delay until connected or closed. */
  private async reconnect(): Promise<void> {
    this.backoff.reset();
    while (!this.stop.signal.aborted) {
      await this.wait(this.backoff.next(), this.stop.signal);
      if (this.stop.signal.aborted) break;
      const client = this.makeClient(this.options.url);
      try {
        await this.connect(client);
        for (const [channel, handler] of this.subscriptions) await client.subscribe(channel, (message) => handler(message));
      } catch (error) {
        client.close();
        this.status = { ...this.status, attempts: this.status.attempts + 1, lastError: errorMessage(error) };
        continue;
      }
      if (this.stop.signal.aborted) {
        client.close();
        break;
      }
      this.status.reconnects += 1;
      this.reconnecting = false; // from here a lost connection starts a new loop
      this.attach(client);
      this.options.logger.info(`Redis connection restored (${this.options.purpose})`, { reconnects: this.status.reconnects });
      this.options.onRestored?.();
      return;
    }
    this.reconnecting = false;
  }
}
