/**
 * The PostgreSQL verified-token cache at its bound: TOKEN_CACHE_MAX_ENTRIES tokens are held; the one past the bound
 * starts the cache afresh, and every token still verifies.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { TOKEN_CACHE_MAX_ENTRIES } from "../../src/storage/index.ts";
import { pgStorage, type PgStorage } from "../../src/storage/postgres/index.ts";
import { PgTokenStore } from "../../src/storage/postgres/tokens.ts";
import { dropSchema, TEST_DATABASE_URL, testNeeding, uniqueSchema } from "../helpers/servers.ts";

const schema = uniqueSchema("token_cache");
let storage: PgStorage | null = null;
const testWithPostgres = await testNeeding("postgres");

beforeAll(async () => {
  if (testWithPostgres !== test) return;
  storage = await pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 2 });
});
afterAll(async () => {
  await storage?.close();
  if (storage) await dropSchema(schema);
});

testWithPostgres(`the cache holds ${TOKEN_CACHE_MAX_ENTRIES} verified tokens; one more starts it afresh, all still verify`, async () => {
  const tokens = new PgTokenStore(storage!.sql, () => 1_700_000_000_000);
  const minted: string[] = [];
  for (let i = 0; i <= TOKEN_CACHE_MAX_ENTRIES; i++) minted.push((await tokens.create(`t${i}`)).token);
  for (const token of minted.slice(0, -1)) expect(await tokens.verify(token)).not.toBeNull();
  expect(tokens.cachedCount).toBe(TOKEN_CACHE_MAX_ENTRIES);
  expect(await tokens.verify(minted.at(-1)!)).not.toBeNull();
  expect(tokens.cachedCount).toBe(1);
  expect(await tokens.verify(minted[0]!)).not.toBeNull();
  expect(tokens.cachedCount).toBe(2);
}, 60_000);
