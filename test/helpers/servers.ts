/**
 * What some tests need from outside the repository: the PostgreSQL and Redis servers the scale-out tests talk to
 * (127.0.0.1:5432 database `test`, 127.0.0.1:6379 on development and CI machines; PRX_TEST_DATABASE_URL /
 * PRX_TEST_REDIS_URL point elsewhere) and Debian's Chromium for the browser tests. The rule, in one place: outside CI
 * a missing one skips those tests (reported as skipped, with one line saying why); in CI (CI set) all of them are
 * there, so a missing one is a failure.
 */
import { test } from "bun:test";
import { RedisClient, SQL } from "bun";
import { existsSync } from "node:fs";

export const TEST_DATABASE_URL = process.env.PRX_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
export const TEST_REDIS_URL = process.env.PRX_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const IN_CI = Boolean(process.env.CI) && process.env.CI !== "0" && process.env.CI !== "false";

async function answers(probe: () => Promise<unknown>): Promise<string | null> {
  try {
    await Promise.race([probe(), Bun.sleep(3000).then(() => Promise.reject(new Error("no answer within 3 s")))]);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

let pgProbe: Promise<string | null> | null = null;
let redisProbe: Promise<string | null> | null = null;

const said = new Set<string>();

function decide(what: string, where: string, problem: string | null): boolean {
  if (problem === null) return true;
  const line = `${what} at ${where} is not available (${problem})`;
  if (IN_CI) throw new Error(`${line}: CI needs it`);
  if (!said.has(line)) console.warn(`SKIP: ${line}; the ${what} tests are skipped outside CI`);
  said.add(line);
  return false;
}

/** True when PostgreSQL answers (the tests using it run), false outside CI when it does not; throws in CI. */
export async function postgresAvailable(): Promise<boolean> {
  pgProbe ??= answers(async () => {
    const sql = new SQL(TEST_DATABASE_URL, { max: 1, connectionTimeout: 3 });
    try {
      await sql`SELECT 1`;
    } finally {
      await sql.close();
    }
  });
  return decide("PostgreSQL", TEST_DATABASE_URL, await pgProbe);
}

export async function redisAvailable(): Promise<boolean> {
  redisProbe ??= answers(async () => {
    const redis = new RedisClient(TEST_REDIS_URL, { connectionTimeout: 3000, autoReconnect: false });
    try {
      await redis.send("PING", []);
    } finally {
      redis.close();
    }
  });
  return decide("Redis", TEST_REDIS_URL, await redisProbe);
}

/** Debian's Chromium (`apt-get install -y chromium`; PRX_CHROMIUM points elsewhere); .ci/run installs it. */
export const CHROMIUM = process.env.PRX_CHROMIUM ?? "/usr/bin/chromium";

export function chromiumAvailable(): boolean {
  return decide("Chromium", CHROMIUM, existsSync(CHROMIUM) ? null : "run `apt-get install -y chromium` or set PRX_CHROMIUM");
}

export type TestNeed = "postgres" | "redis" | "chromium";

const PROBES: Record<TestNeed, () => boolean | Promise<boolean>> = {
  postgres: postgresAvailable,
  redis: redisAvailable,
  chromium: chromiumAvailable,
};

/**
 * `test` when everything named is there, `test.skip` when something is not (outside CI). In CI a missing one throws
 * here, so the test file fails instead of skipping. Await it at the top of a test file:
 * `const testWithPostgres = await testNeeding("postgres");`.
 */
export async function testNeeding(...needs: TestNeed[]): Promise<typeof test> {
  for (const need of needs) if (!(await PROBES[need]())) return test.skip;
  return test;
}

/** A fresh schema name for one test file's run (dropped by dropSchema). */
export function uniqueSchema(tag: string): string {
  return `${process.env.PRX_TEST_SCHEMA_PREFIX ?? "prx_t_"}${tag}_${process.pid}_${Math.floor(Math.random() * 1e9).toString(36)}`.toLowerCase().replace(/[^a-z0-9_]/g, "_");
}

export async function dropSchema(schema: string): Promise<void> {
  const sql = new SQL(TEST_DATABASE_URL, { max: 1 });
  try {
    await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await sql.close();
  }
}

/** A fresh Redis key prefix for one test file's run (its keys deleted by dropKeys). */
export function uniquePrefix(tag: string): string {
  return `${process.env.PRX_TEST_KEY_PREFIX ?? "prxt:"}${tag}:${process.pid}:${Math.floor(Math.random() * 1e9).toString(36)}`;
}

/**
 * Delete every Redis key under `prefix` (`<prefix>:*`, as the gateway names its keys: rate limits, pairing lockouts,
 * the bus), walking the keys with SCAN so a Redis other tests share is never held by one long KEYS.
 */
export async function dropKeys(prefix: string): Promise<number> {
  const redis = new RedisClient(TEST_REDIS_URL);
  let dropped = 0;
  try {
    let cursor = "0";
    do {
      const [next, keys] = (await redis.send("SCAN", [cursor, "MATCH", `${prefix}:*`, "COUNT", "1000"])) as [string, string[]];
      if (keys.length > 0) dropped += (await redis.send("UNLINK", keys)) as number;
      cursor = next;
    } while (cursor !== "0");
  } finally {
    redis.close();
  }
  return dropped;
}
