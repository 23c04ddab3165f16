/**
 * SQLite's session search answers from the trigram index while it names at most SESSION_SEARCH_INDEX_MAX_HITS
 * sessions, and reads sessions newest first past that. A session left out of the index (made here by deleting its
 * row from the index) shows which way a search went: only the reading finds it.
 */
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { SESSION_SEARCH_INDEX_MAX_HITS } from "../../src/storage/limits.ts";
import { sqliteStorage } from "../../src/storage/index.ts";

const db = new Database(":memory:", { strict: true });
const storage = sqliteStorage(db);
afterAll(() => storage.close());

function addSessions(prefix: string, count: number): void {
  db.query(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO sessions (id, title, channel, created_at, updated_at) SELECT ? || i, 'Topic ' || ?, 'cli', '2020', '2020' FROM n`,
  ).run(count, `${prefix}-`, prefix);
}

test(`a text ${SESSION_SEARCH_INDEX_MAX_HITS} sessions hold is answered from the index; one more session, by reading sessions`, () => {
  addSessions("walrus", SESSION_SEARCH_INDEX_MAX_HITS - 1);
  storage.sessions.ensure("unindexed-walrus", "cli");
  storage.sessions.rename("unindexed-walrus", "Topic walrus");
  db.query("DELETE FROM sessions_search WHERE id = 'unindexed-walrus'").run();
  storage.sessions.ensure("latest-walrus", "cli");
  storage.sessions.rename("latest-walrus", "Topic walrus");
  // newest without a tie: both sessions above may be stamped within the same millisecond
  db.query("UPDATE sessions SET updated_at = '2999' WHERE id = 'latest-walrus'").run();
  const ids = () => storage.sessions.search("WALRUS", SESSION_SEARCH_INDEX_MAX_HITS + 10).map((s) => s.id);

  // the index names exactly the limit: the session it lacks is not found
  expect(ids()).toHaveLength(SESSION_SEARCH_INDEX_MAX_HITS);
  expect(ids()).not.toContain("unindexed-walrus");

  addSessions("walrus-more", 1);
  expect(ids()).toHaveLength(SESSION_SEARCH_INDEX_MAX_HITS + 2);
  expect(ids()).toContain("unindexed-walrus");
  expect(storage.sessions.search("walrus", 1).map((s) => s.id)).toEqual(["latest-walrus"]);
});

test("a search text holding NUL is answered as SQLite's LIKE answered it before the index, never an FTS5 syntax error", () => {
  storage.sessions.ensure("nul-text", "cli");
  storage.sessions.rename("nul-text", "Narwhal sighting");
  const ids = (text: string) => storage.sessions.search(text).map((s) => s.id);
  // LIKE takes a NUL for the end of the title: it matches there and only there
  expect(ids("ghting\0")).toEqual(["nul-text"]);
  expect(ids("narwh\0")).toEqual([]);
  expect(ids("\0\0\0")).toContain("nul-text");
});
