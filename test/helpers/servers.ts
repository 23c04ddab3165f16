/**
 * The PostgreSQL and Redis servers the scale-out tests talk to (127.0.0.1:5432 database `test`, 127.0.0.1:6379 on
 * development and CI machines; PRX_TEST_DATABASE_URL / PRX_TEST_REDIS_URL point elsewhere). Outside CI a missing
 * server skips those tests with one line saying so; in CI (CI set) it is a failure.
 */
import { RedisClient, SQL } from "bun";

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

function decide(what: string, url: string, problem: string | null): boolean {
  if (problem === null) return true;
  const line = `${what} at ${url} does not answer (${problem})`;
  if (IN_CI) throw new Error(`${line}: CI needs it running`);
  console.warn(`SKIP: ${line}; the ${what} tests are skipped outside CI`);
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

/** A fresh schema name for one test file's run (dropped by dropSchema). */
export function uniqueSchema(tag: string): string {
  return `prx_t_${tag}_${process.pid}_${Math.floor(Math.random() * 1e9).toString(36)}`.toLowerCase().replace(/[^a-z0-9_]/g, "_");
}

export async function dropSchema(schema: string): Promise<void> {
  const sql = new SQL(TEST_DATABASE_URL, { max: 1 });
  try {
    await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await sql.close();
  }
}

/** A fresh Redis key prefix for one test file's run. */
export function uniquePrefix(tag: string): string {
  return `prxt:${tag}:${process.pid}:${Math.floor(Math.random() * 1e9).toString(36)}`;
}
