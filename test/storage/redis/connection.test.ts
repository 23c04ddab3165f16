/**
 * SupervisedRedis: reconnection forever with a bounded backoff (fake clients and a clock the test moves), commands
 * failing at once while Redis is away or after the command timeout; then the same against a redis-server of the
 * test's own that is stopped and started again (Bun's real client, subscriptions included).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { isPrxError } from "../../../src/core/errors.ts";
import { exponentialDelay } from "../../../src/core/supervise/index.ts";
import {
  REDIS_RECONNECT_BASE_MS,
  REDIS_RECONNECT_MAX_MS,
  SupervisedRedis,
  type RedisClientLike,
} from "../../../src/storage/redis/index.ts";
import { captureLogger } from "../../plugins/events/log.ts";
import { ownRedis, REDIS_SERVER, testNeedingBinary, type OwnServer } from "../../helpers/own-servers.ts";
import { waitFor } from "../../helpers/wait.ts";

/** A pretend Redis: up or down; the clients it made, so the test can drop the live one. */
class FakeRedis {
  up = true;
  readonly clients: Array<RedisClientLike & { drop(): void; subscribed: string[] }> = [];
  answer: (command: string) => Promise<unknown> = async () => "PONG";

  client = (): RedisClientLike => {
    const server = this;
    const client = {
      onclose: null as RedisClientLike["onclose"],
      subscribed: [] as string[],
      connected: false,
      async connect() {
        if (!server.up) throw new Error("Connection refused");
        client.connected = true;
      },
      send: (command: string) => server.answer(command),
      async subscribe(channel: string) {
        client.subscribed.push(channel);
      },
      close() {},
      drop() {
        client.connected = false;
        client.onclose?.call(client, new Error("Connection closed"));
      },
    };
    this.clients.push(client);
    return client;
  };
}

/** A clock the test moves: each sleep is recorded and resolves when the test lets it. */
class ManualClock {
  now = 0;
  readonly waits: number[] = [];
  private pending: Array<() => void> = [];

  sleep = (ms: number): Promise<void> => {
    this.waits.push(ms);
    return new Promise((resolve) => this.pending.push(() => ((this.now += ms), resolve())));
  };

  /** Let the one pending wait end; resolves once the connection has acted on it. */
  async tick(): Promise<void> {
    await waitFor(() => this.pending.length > 0, "a reconnection wait");
    this.pending.shift()!();
    await Bun.sleep(0);
  }
}

const backoff = { baseMs: REDIS_RECONNECT_BASE_MS, maxMs: REDIS_RECONNECT_MAX_MS };
/** Failed attempts before the wait reaches REDIS_RECONNECT_MAX_MS. */
const ATTEMPTS_TO_CAP = Math.ceil(Math.log2(REDIS_RECONNECT_MAX_MS / REDIS_RECONNECT_BASE_MS));

function supervised(server: FakeRedis, clock: ManualClock, commandTimeoutMs?: number, onRestored?: () => void): SupervisedRedis {
  return new SupervisedRedis({
    url: "redis://fake",
    purpose: "the test",
    logger: captureLogger(),
    client: server.client,
    sleep: clock.sleep,
    backoff,
    ...(commandTimeoutMs === undefined ? {} : { commandTimeoutMs }),
    ...(onRestored === undefined ? {} : { onRestored }),
  });
}

async function busError(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(isPrxError(error, "BUS")).toBe(true);
  return (error as Error).message;
}

describe("reconnection (fake Redis, clock moved by the test)", () => {
  test(`waits double from ${REDIS_RECONNECT_BASE_MS} ms up to REDIS_RECONNECT_MAX_MS (${REDIS_RECONNECT_MAX_MS} ms) and stay there; it never gives up`, async () => {
    const server = new FakeRedis();
    const clock = new ManualClock();
    const redis = supervised(server, clock);
    await redis.open();
    server.up = false;
    server.clients[0]!.drop();
    expect(redis.connected).toBe(false);
    const pastCap = ATTEMPTS_TO_CAP + 3;
    for (let i = 0; i < pastCap; i++) await clock.tick();
    const expected = Array.from({ length: pastCap }, (_, i) => exponentialDelay(i, backoff));
    expect(clock.waits.slice(0, pastCap)).toEqual(expected);
    expect(clock.waits[ATTEMPTS_TO_CAP]).toBe(REDIS_RECONNECT_MAX_MS); // at the cap
    expect(clock.waits[ATTEMPTS_TO_CAP - 1]).toBeLessThan(REDIS_RECONNECT_MAX_MS);
    expect(Math.max(...clock.waits)).toBe(REDIS_RECONNECT_MAX_MS); // past it: still the cap
    expect(redis.snapshot()).toMatchObject({ state: "reconnecting", attempts: pastCap });

    // Redis returns: connected at the next attempt, within REDIS_RECONNECT_MAX_MS of the clock
    server.up = true;
    const returnedAt = clock.now;
    await clock.tick();
    expect(redis.connected).toBe(true);
    expect(clock.now - returnedAt).toBeLessThanOrEqual(REDIS_RECONNECT_MAX_MS);
    expect(redis.snapshot()).toMatchObject({ state: "up", reconnects: 1, attempts: 0 });
    expect(await redis.send("PING", [])).toBe("PONG");

    // a second outage starts over from the first wait
    server.clients.at(-1)!.drop();
    await clock.tick();
    expect(clock.waits.at(-1)).toBe(REDIS_RECONNECT_BASE_MS);
    expect(redis.snapshot().reconnects).toBe(2);
    redis.close();
  });

  test("while Redis is away a command fails at once with BUS; subscriptions are made again on the new connection", async () => {
    const server = new FakeRedis();
    const clock = new ManualClock();
    const redis = supervised(server, clock);
    await redis.open();
    await redis.subscribe("events", () => {});
    server.up = false;
    server.clients[0]!.drop();
    expect(await busError(redis.send("PING", []))).toContain("Redis is unreachable (the test); reconnecting");
    server.up = true;
    await clock.tick();
    expect(server.clients.at(-1)!.subscribed).toEqual(["events"]);
    redis.close();
  });

  test("onRestored is called once per connection made again (after its subscriptions), not at the first connection", async () => {
    const server = new FakeRedis();
    const clock = new ManualClock();
    const restored: string[][] = [];
    const redis = supervised(server, clock, undefined, () => restored.push([...server.clients.at(-1)!.subscribed]));
    await redis.open();
    await redis.subscribe("events", () => {});
    expect(restored).toEqual([]);
    server.up = false;
    server.clients[0]!.drop();
    await clock.tick();
    expect(restored).toEqual([]);
    server.up = true;
    await clock.tick();
    expect(restored).toEqual([["events"]]);
    server.clients.at(-1)!.drop();
    await clock.tick();
    expect(restored).toEqual([["events"], ["events"]]);
    redis.close();
  });

  test("a command Redis does not answer fails with BUS after the command timeout and the connection is made again; one answered passes", async () => {
    const server = new FakeRedis();
    const clock = new ManualClock();
    const redis = supervised(server, clock, 20);
    await redis.open();
    expect(await redis.send("PING", [])).toBe("PONG");
    server.answer = () => new Promise(() => {});
    expect(await busError(redis.send("EVAL", []))).toBe("Redis did not answer EVAL within 20 ms (the test)");
    // the connection is given up: the next command fails at once, and a new one is made
    expect(redis.connected).toBe(false);
    expect(await busError(redis.send("PING", []))).toContain("reconnecting: no answer to EVAL within 20 ms");
    server.answer = async () => "PONG";
    await clock.tick();
    expect(await redis.send("PING", [])).toBe("PONG");
    redis.close();
  });

  test("a Redis that does not answer at start fails the start with BUS naming what it was for", async () => {
    const server = new FakeRedis();
    server.up = false;
    const redis = supervised(server, new ManualClock());
    expect(await busError(redis.open())).toBe("cannot connect to Redis for the test: Connection refused");
  });

  test("a connection Redis does not complete (accepted, never answered) fails after the connect timeout", async () => {
    const server = new FakeRedis();
    const redis = new SupervisedRedis({
      url: "redis://fake",
      purpose: "the test",
      logger: captureLogger(),
      client: () => ({ ...server.client(), connect: () => new Promise(() => {}) }),
      connectTimeoutMs: 20,
    });
    expect(await busError(redis.open())).toBe("cannot connect to Redis for the test: no connection within 20 ms");
  });

  test("openOrRetry: a Redis away at the first connection is waited for like an outage; subscriptions made meanwhile apply", async () => {
    const server = new FakeRedis();
    server.up = false;
    const clock = new ManualClock();
    const redis = supervised(server, clock);
    await redis.openOrRetry();
    await redis.subscribe("events", () => {});
    expect(redis.snapshot()).toMatchObject({ state: "reconnecting", lastError: expect.stringContaining("Connection refused") });
    server.up = true;
    await clock.tick();
    expect(redis.connected).toBe(true);
    expect(server.clients.at(-1)!.subscribed).toEqual(["events"]);
    redis.close();
  });
});

const testWithRedis = testNeedingBinary(REDIS_SERVER, "redis-server");
let own: OwnServer | null = null;
afterAll(async () => {
  await own?.dispose();
});

describe("a real redis-server stopped and started again", () => {
  testWithRedis("commands fail at once while it is away; the connection and its subscriptions come back by themselves", async () => {
    own = await ownRedis();
    const logger = captureLogger();
    const sub = new SupervisedRedis({ url: own.url, purpose: "subscriber", logger });
    const pub = new SupervisedRedis({ url: own.url, purpose: "publisher", logger });
    await sub.open();
    await pub.open();
    const got: string[] = [];
    await sub.subscribe("ch", (message) => got.push(message));
    await pub.send("PUBLISH", ["ch", "before"]);
    await waitFor(() => got.includes("before"), "the message before the outage");

    await own.stop();
    await waitFor(() => !pub.connected && !sub.connected, "both connections to see Redis gone");
    expect(await busError(pub.send("PING", []))).toContain("Redis is unreachable (publisher)");

    await own.start();
    await waitFor(() => pub.connected && sub.connected, "both connections back");
    expect(await pub.send("PING", [])).toBe("PONG");
    // the subscription was made again: a message published now arrives
    await waitFor(async () => {
      await pub.send("PUBLISH", ["ch", "after"]);
      return got.includes("after");
    }, "a message after the outage");
    expect(pub.snapshot()).toMatchObject({ state: "up", reconnects: 1 });
    expect(logger.records.some((r) => r.message.startsWith("Redis connection lost (publisher)"))).toBe(true);
    pub.close();
    sub.close();
  });
});
