/**
 * `CALL prx_turn_end(...)`: a leased turn's writes and its lease's end in one statement (one round trip). The
 * session row is touched (created with `p_channel` and `p_agent` when that is given, else only updated), the media the
 * messages refer to linked, and the messages (`p_messages`, a JSON array of rows as session_messages stores them)
 * numbered after the last one stored; with `p_release`, the writes are committed and then the session's advisory lock
 * (as session-leases.ts keys it) released, so a turn that takes the lock next sees every message. A failure before the
 * commit writes nothing and leaves the lock held (the caller closes the connection, which drops it).
 */
export const TURN_END_SQL = `
CREATE OR REPLACE PROCEDURE prx_turn_end(p_session TEXT, p_created TEXT, p_at TEXT, p_title TEXT, p_channel TEXT,
  p_agent TEXT, p_messages TEXT, p_media TEXT, p_release BOOLEAN, INOUT released BOOLEAN DEFAULT NULL)
LANGUAGE plpgsql AS $turn$
BEGIN
  IF p_messages IS NOT NULL THEN
    IF p_channel IS NULL THEN
      UPDATE sessions SET updated_at = p_at, title = CASE WHEN sessions.title = '' AND p_title <> '' THEN p_title ELSE sessions.title END
        WHERE id = p_session;
    ELSE
      INSERT INTO sessions (id, title, channel, agent, created_at, updated_at) VALUES (p_session, p_title, p_channel, p_agent, p_created, p_at)
        ON CONFLICT (id) DO UPDATE SET updated_at = p_at,
          title = CASE WHEN sessions.title = '' AND p_title <> '' THEN p_title ELSE sessions.title END;
    END IF;
    IF p_media IS NOT NULL THEN
      INSERT INTO session_media (session_id, sha256) SELECT p_session, h FROM json_array_elements_text(p_media::json) AS h
        ON CONFLICT DO NOTHING;
    END IF;
    INSERT INTO session_messages (session_id, seq, role, content, tool_calls, tool_call_id, name, media, usage, created_at)
      SELECT p_session, base.seq + e.n, e.m->>'role', e.m->>'content', e.m->>'tool_calls', e.m->>'tool_call_id', e.m->>'name',
        e.m->>'media', e.m->>'usage', e.m->>'created_at'
      FROM (SELECT COALESCE(MAX(t.seq), 0) AS seq FROM session_messages t WHERE t.session_id = p_session) base,
        json_array_elements(p_messages::json) WITH ORDINALITY AS e(m, n)
      ORDER BY e.n;
  END IF;
  IF p_release THEN
    COMMIT;
    released := pg_advisory_unlock(hashtext('prx.session'), hashtext(p_session));
  END IF;
END
$turn$;`;
