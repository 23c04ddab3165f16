/**
 * Migrations under the advisory lock, and `prx storage` moving a SQLite workspace into PostgreSQL.
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import type { SQL } from "bun";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PrxError } from "../../src/core/errors.ts";
import { openWorkspace } from "../../src/core/workspace.ts";
import { SqliteMemory } from "../../src/memory/index.ts";
import { openSqliteStorage } from "../../src/storage/index.ts";
import { openPg } from "../../src/storage/postgres/connect.ts";
import { PG_MIGRATIONS, pgStorage } from "../../src/storage/postgres/index.ts";
import { vectorOffered } from "../../src/storage/postgres/migration-vector.ts";
import { migratePg } from "../../src/storage/postgres/migrations.ts";
import { ensureBinary, runPrx } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { dropSchema, TEST_DATABASE_URL, testNeeding, uniqueSchema } from "../helpers/servers.ts";

setDefaultTimeout(60_000);
const testWithPostgres = await testNeeding("postgres");
const schemas: string[] = [];
afterAll(async () => {
  for (const s of schemas) await dropSchema(s);
});

testWithPostgres("replicas starting at once migrate once: every version is applied by exactly one of them", async () => {
  const schema = uniqueSchema("race");
  schemas.push(schema);
  const opened = await Promise.all(
    Array.from({ length: 4 }, () => pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 2 })),
  );
  const applied = opened.flatMap((s) => s.applied).sort((a, b) => a - b);
  // the pgvector migration only where the server offers pgvector
  const offered = await vectorOffered(opened[0]!.sql);
  expect(applied).toEqual(PG_MIGRATIONS.filter((m) => m.requires !== "vector" || offered).map((m) => m.version));
  const status = await opened[0]!.status();
  expect(status.pending).toEqual([]);
  await Promise.all(opened.map((s) => s.close()));
});

/** Tables of `schema` that also exist in public: what an opener migrating into public would have left there. */
async function tablesAlsoInPublic(sql: SQL, schema: string): Promise<{ own: string[]; inPublic: string[] }> {
  const own = (await sql.unsafe("SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY 1", [schema])).map((r: { tablename: string }) => r.tablename);
  const inPublic = (
    await sql.unsafe("SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename = ANY($1::text[]) ORDER BY 1", [own])
  ).map((r: { tablename: string }) => r.tablename);
  return { own, inPublic };
}

testWithPostgres("several stores opened at once on a brand-new schema create every table in it and none in public", async () => {
  const schema = uniqueSchema("fresh");
  schemas.push(schema);
  const opened = await Promise.all(Array.from({ length: 6 }, () => pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 2 })));
  try {
    const { own, inPublic } = await tablesAlsoInPublic(opened[0]!.sql, schema);
    expect(own).toContain("prx_migrations");
    expect(own).toContain("sessions");
    expect(inPublic).toEqual([]);
    const ledgers = await opened[0]!.sql.unsafe("SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'prx_migrations' AND schemaname IN ($1, 'public')", [schema]);
    expect(ledgers[0].n).toBe(1);
  } finally {
    await Promise.all(opened.map((s) => s.close()));
  }
});

testWithPostgres("a migrating connection whose search_path names only public still migrates into the store's schema", async () => {
  const schema = uniqueSchema("path");
  schemas.push(schema);
  const onPublic = openPg({ url: TEST_DATABASE_URL, schema: "public", max: 1 });
  try {
    const applied = await migratePg(onPublic, schema);
    expect(applied).toContain(1);
    const { own, inPublic } = await tablesAlsoInPublic(onPublic, schema);
    expect(own).toContain("prx_migrations");
    expect(inPublic).toEqual([]);
    expect(await migratePg(onPublic, schema)).toEqual([]);
  } finally {
    await onPublic.close();
  }
});

testWithPostgres("a schema the migrating connection cannot resolve to fails naming it, and nothing is created in public", async () => {
  // a quoted mixed-case name is created as such but resolves, unquoted in search_path, to another (missing) schema
  const schema = `${uniqueSchema("guard")}_Mixed`;
  schemas.push(schema);
  const sql = openPg({ url: TEST_DATABASE_URL, schema, max: 1 });
  try {
    const error = await migratePg(sql, schema).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PrxError);
    expect((error as PrxError).code).toBe("STORAGE");
    expect((error as PrxError).message).toContain(`"${schema}"`);
    const ledger = await sql.unsafe("SELECT to_regclass('public.prx_migrations') IS NULL AS absent");
    expect(ledger[0].absent).toBe(true);
  } finally {
    await sql.close();
  }
});

testWithPostgres("prx storage copy moves a workspace to PostgreSQL and back; a second copy inserts nothing", async () => {
  await ensureBinary();
  const schema = uniqueSchema("copy");
  schemas.push(schema);
  const ws = tempWorkspace(`[storage]\nbackend = "sqlite"\nschema = "${schema}"\n`);
  try {
    const dbPath = openWorkspace(ws.dir).dbPath;
    const lite = openSqliteStorage(dbPath);
    lite.sessions.ensure("s1", "cli");
    lite.sessions.append("s1", [
      { role: "user", content: "hello there" },
      { role: "assistant", content: "hi" },
    ]);
    lite.sessionLinks.link({ childId: "delegate_c1", parentId: "s1", depth: 1, createdAt: 1_700_000_000_000 });
    lite.sessions.append("s-work", [{ role: "user", content: "for the work agent" }], { channel: "telegram", agent: "work" });
    // a message whose turn had started: its mark keeps the seq of its user message across the copy
    lite.channels.admit("telegram", "m1", "chat1", "{}", "received");
    lite.sessions.append("s-work", [{ role: "user", content: "in flight" }], { answering: { channel: "telegram", messageId: "m1" } });
    const { token } = lite.tokens.create("laptop");
    lite.pluginKv.set("p", "k", new Uint8Array([7]), 1024);
    const kept = { id: "resp_copy", scope: "tok_x", createdAt: Math.floor(Date.now() / 1000), response: "{}", inputItems: "[]", context: "[]" };
    lite.responses.put(kept);
    const memory = new SqliteMemory(() => lite.memory);
    await memory.store("fav", "my favourite colour is teal", "prefs", null, { private: true });
    await lite.close();

    const env = { DATABASE_URL: TEST_DATABASE_URL };
    const first = await runPrx(["storage", "copy", "--from", "sqlite", "--to", "postgres", "--json", "-w", ws.dir], { env });
    expect(first.code).toBe(0);
    const tables = JSON.parse(first.stdout).tables as Array<{ table: string; read: number; inserted: number }>;
    const row = (name: string) => tables.find((t) => t.table === name)!;
    expect(row("sessions")).toEqual({ table: "sessions", read: 2, inserted: 2 });
    expect(row("session_messages").inserted).toBe(4);
    expect(row("channel_inbox").inserted).toBe(1);
    expect(row("memories").inserted).toBe(1);
    expect(row("session_links").inserted).toBe(1);
    const again = await runPrx(["storage", "copy", "--from", "sqlite", "--to", "postgres", "--json", "-w", ws.dir], { env });
    expect((JSON.parse(again.stdout).tables as Array<{ inserted: number }>).every((t) => t.inserted === 0)).toBe(true);

    const pg = await pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 2 });
    expect((await pg.sessions.history("s1", 10)).map((m) => m.content)).toEqual(["hello there", "hi"]);
    expect((await pg.sessions.get("s1"))?.messageCount).toBe(2);
    expect((await pg.sessions.get("s-work"))?.agent).toBe("work");
    expect(await pg.channels.entry("telegram", "m1")).toMatchObject({ state: "started", startedSeq: 2 });
    expect((await pg.tokens.verify(token))?.name).toBe("laptop");
    expect(await pg.pluginKv.get("p", "k")).toEqual(new Uint8Array([7]));
    expect(await pg.responses.get("tok_x", "resp_copy")).toEqual(kept);
    expect(await pg.sessionLinks.parentOf("delegate_c1")).toEqual({ childId: "delegate_c1", parentId: "s1", depth: 1, createdAt: 1_700_000_000_000 });
    const recalled = await pg.sql.unsafe("SELECT key, private FROM memories");
    expect(recalled).toEqual([{ key: "fav", private: true }]);
    await pg.close();

    writeFileSync(join(ws.dir, "config.toml"), `[storage]\nbackend = "postgres"\nschema = "${schema}"\n[memory]\nbackend = "postgres"\n`);
    const status = await runPrx(["storage", "status", "--json", "-w", ws.dir], { env });
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ backend: "postgres", pending: [] });
    const found = await runPrx(["memory", "search", "teal colour", "-w", ws.dir], { env });
    expect(found.stdout).toContain("fav");

    // and back, into a new workspace's database
    const back = tempWorkspace(`[storage]\nbackend = "postgres"\nschema = "${schema}"\n`);
    try {
      const copied = await runPrx(["storage", "copy", "--from", "postgres", "--to", "sqlite", "--json", "-w", back.dir], { env });
      expect(copied.stderr).toBe("");
      const backTables = JSON.parse(copied.stdout).tables as Array<{ table: string; read: number; inserted: number }>;
      expect(backTables.find((t) => t.table === "session_messages")).toEqual({ table: "session_messages", read: 4, inserted: 4 });
      const again = await runPrx(["storage", "copy", "--from", "postgres", "--to", "sqlite", "--json", "-w", back.dir], { env });
      expect((JSON.parse(again.stdout).tables as Array<{ inserted: number }>).every((t) => t.inserted === 0)).toBe(true);
      const restored = openSqliteStorage(openWorkspace(back.dir).dbPath);
      try {
        expect(restored.sessions.history("s1", 10).map((m) => m.content)).toEqual(["hello there", "hi"]);
        expect(restored.sessions.get("s1")?.messageCount).toBe(2);
        expect(restored.channels.entry("telegram", "m1")).toMatchObject({ state: "started", startedSeq: 2 });
        expect(restored.tokens.verify(token)?.name).toBe("laptop");
        expect(restored.pluginKv.get("p", "k")).toEqual(new Uint8Array([7]));
        expect(restored.responses.get("tok_x", "resp_copy")).toEqual(kept);
        expect(await new SqliteMemory(() => restored.memory).get("fav")).toMatchObject({ key: "fav", private: true });
      } finally {
        await restored.close();
      }
    } finally {
      back.cleanup();
    }
  } finally {
    ws.cleanup();
  }
});

testWithPostgres("a schema at version 5 migrates: message counts are backfilled and kept, its search has the trigram indexes", async () => {
  const schema = uniqueSchema("v5");
  schemas.push(schema);
  const old = openPg({ url: TEST_DATABASE_URL, schema, max: 1 });
  await old.unsafe(`CREATE SCHEMA "${schema}"`);
  await old.unsafe("CREATE TABLE prx_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)");
  for (const migration of PG_MIGRATIONS.filter((m) => m.version <= 5 && m.requires === undefined)) {
    await old.unsafe(migration.sql);
    await old.unsafe("INSERT INTO prx_migrations VALUES ($1, $2, '2026-01-01T00:00:00.000Z')", [migration.version, migration.name]);
  }
  await old.unsafe(`INSERT INTO sessions (id, title, channel, created_at, updated_at) VALUES
    ('old-three', 'Three old messages', 'cli', '2026-01-01', '2026-01-01'), ('old-none', '', 'cli', '2026-01-02', '2026-01-02')`);
  await old.unsafe("INSERT INTO session_messages (session_id, seq, role, content, created_at) SELECT 'old-three', i, 'user', 'x', '2026' FROM generate_series(1, 3) i");
  await old.close();

  const pg = await pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 2 });
  try {
    expect(pg.applied).toEqual(PG_MIGRATIONS.filter((m) => m.version > 5).map((m) => m.version));
    expect((await pg.sessions.get("old-three"))?.messageCount).toBe(3);
    expect((await pg.sessions.get("old-none"))?.messageCount).toBe(0);
    await pg.sessions.append("old-none", [{ role: "user", content: "now" }]);
    await pg.sql.unsafe("DELETE FROM session_messages WHERE session_id = 'old-three' AND seq = 2");
    expect((await pg.sessions.list()).map((s) => [s.id, s.messageCount])).toEqual([["old-none", 1], ["old-three", 2]]);
    expect((await pg.sessions.search("OLD MESS")).map((s) => s.id)).toEqual(["old-three"]);
    const indexes = await pg.sql.unsafe("SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'sessions_search' AND indexdef LIKE '%gin_trgm_ops%' ORDER BY 1", [schema]);
    expect(indexes.map((r: { indexname: string }) => r.indexname)).toEqual(["sessions_search_id", "sessions_search_title"]);
  } finally {
    await pg.close();
  }
});
