/**
 * Several PostgreSQL stores sharing one throw-away schema, as processes or replicas share it: opened before the
 * file's tests (when PostgreSQL is here), closed and the schema dropped after them. `test` is bun:test's test, or its
 * skip where PostgreSQL is missing (never in CI).
 */
import { afterAll, beforeAll, test as bunTest } from "bun:test";
import { pgStorage, type PgStorage } from "../../src/storage/postgres/index.ts";
import { dropSchema, TEST_DATABASE_URL, testNeeding, uniqueSchema } from "./servers.ts";

export interface SharedPgStores {
  schema: string;
  /** Filled before the first test runs. */
  stores: PgStorage[];
  test: typeof bunTest;
}

export async function sharedPgStores(tag: string, count: number, poolMax = 2): Promise<SharedPgStores> {
  const schema = uniqueSchema(tag);
  const test = await testNeeding("postgres");
  const stores: PgStorage[] = [];
  beforeAll(async () => {
    if (test !== bunTest) return;
    for (let i = 0; i < count; i++) stores.push(await pgStorage({ url: TEST_DATABASE_URL, schema, poolMax }));
  });
  afterAll(async () => {
    for (const store of stores.splice(0)) await store.close();
    if (test === bunTest) await dropSchema(schema);
  });
  return { schema, stores, test };
}
