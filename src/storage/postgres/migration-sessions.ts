/**
 * `sessions.message_count`, kept by statement triggers on `session_messages` (one UPDATE per statement, in its
 * transaction), so every writer (each replica, `prx storage copy`, a cascade) keeps it right and a list never counts.
 */
export const SESSION_COUNTS_SQL = `
ALTER TABLE sessions ADD COLUMN message_count INTEGER NOT NULL DEFAULT 0;
UPDATE sessions s SET message_count = c.n
  FROM (SELECT session_id, count(*)::int AS n FROM session_messages GROUP BY session_id) c WHERE s.id = c.session_id;
CREATE FUNCTION session_messages_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE sessions s SET message_count = s.message_count + c.n
    FROM (SELECT session_id, count(*)::int AS n FROM added GROUP BY session_id) c WHERE s.id = c.session_id;
  RETURN NULL;
END $$;
CREATE FUNCTION session_messages_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE sessions s SET message_count = s.message_count - c.n
    FROM (SELECT session_id, count(*)::int AS n FROM removed GROUP BY session_id) c WHERE s.id = c.session_id;
  RETURN NULL;
END $$;
CREATE TRIGGER session_messages_added AFTER INSERT ON session_messages
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION session_messages_added();
CREATE TRIGGER session_messages_removed AFTER DELETE ON session_messages
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION session_messages_removed();`;

/**
 * A session search compares `lower(title)` and `lower(id)` with LIKE '%text%'. `sessions_search` mirrors each
 * session's id and title (kept by triggers: on insert, and when the title changes) and carries trigram GIN indexes
 * (pg_trgm) on both expressions, so a search reads the sessions holding the text's trigrams instead of every row.
 * The indexes are not on `sessions` itself because every append rewrites its row (updated_at, message_count), and
 * each rewrite would add every trigram of the title to them again. Without fastupdate, a new title goes into the
 * index at once (no pending list every search would read). pg_trgm is installed into public unless the database has
 * it (wherever it lives, its operator class is named by schema). A server that refuses it keeps the search a scan of
 * `sessions_search`: same answers, and a warning in the server's log.
 */
export const SESSION_SEARCH_SQL = `
CREATE TABLE sessions_search (
  id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  title TEXT NOT NULL
);
INSERT INTO sessions_search (id, title) SELECT id, title FROM sessions;
CREATE FUNCTION sessions_search_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO sessions_search (id, title) VALUES (NEW.id, NEW.title);
  ELSE
    UPDATE sessions_search SET title = NEW.title WHERE id = NEW.id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER sessions_search_added AFTER INSERT ON sessions FOR EACH ROW EXECUTE FUNCTION sessions_search_kept();
CREATE TRIGGER sessions_search_retitled AFTER UPDATE OF title ON sessions
  FOR EACH ROW WHEN (OLD.title IS DISTINCT FROM NEW.title) EXECUTE FUNCTION sessions_search_kept();
DO $$
DECLARE ops text;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    BEGIN
      CREATE EXTENSION pg_trgm SCHEMA public;
    EXCEPTION WHEN OTHERS THEN
      RAISE WARNING 'prx: CREATE EXTENSION pg_trgm failed (%): session search reads every session', SQLERRM;
    END;
  END IF;
  SELECT format('%I.gin_trgm_ops', n.nspname) INTO ops
    FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
  IF ops IS NOT NULL THEN
    EXECUTE format('CREATE INDEX sessions_search_title ON sessions_search USING GIN (lower(title) %s) WITH (fastupdate = off)', ops);
    EXECUTE format('CREATE INDEX sessions_search_id ON sessions_search USING GIN (lower(id) %s) WITH (fastupdate = off)', ops);
  END IF;
END $$;`;
