/**
 * A leased turn's writes counted by the statement that writes them. `prx_turn_end` (migration-turn-end.ts) rewrote
 * the session's row for its time and title, and the insert of its messages had the count trigger
 * (migration-sessions.ts) rewrite the same row again for `message_count`: two row versions and two index passes
 * a write. Here the procedure adds the messages' number in its own write of the row and marks the insert as counted
 * (`prx.messages_counted`, local to the transaction and cleared right after it), and the trigger fires only for
 * inserts not so marked: every other writer (a plain append, `prx storage copy`) is still counted by it.
 */
export const TURN_COUNT_SQL = `
DROP TRIGGER session_messages_added ON session_messages;
CREATE TRIGGER session_messages_added AFTER INSERT ON session_messages
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT
  WHEN (current_setting('prx.messages_counted', true) IS DISTINCT FROM 'on')
  EXECUTE FUNCTION session_messages_added();
CREATE OR REPLACE PROCEDURE prx_turn_end(p_session TEXT, p_created TEXT, p_at TEXT, p_title TEXT, p_channel TEXT,
  p_agent TEXT, p_messages TEXT, p_media TEXT, p_release BOOLEAN, INOUT released BOOLEAN DEFAULT NULL)
LANGUAGE plpgsql AS $turn$
DECLARE
  added INTEGER;
BEGIN
  IF p_messages IS NOT NULL THEN
    added := json_array_length(p_messages::json);
    IF p_channel IS NULL THEN
      UPDATE sessions SET updated_at = p_at, message_count = sessions.message_count + added,
          title = CASE WHEN sessions.title = '' AND p_title <> '' THEN p_title ELSE sessions.title END
        WHERE id = p_session;
    ELSE
      INSERT INTO sessions (id, title, channel, agent, created_at, updated_at, message_count)
        VALUES (p_session, p_title, p_channel, p_agent, p_created, p_at, added)
        ON CONFLICT (id) DO UPDATE SET updated_at = p_at, message_count = sessions.message_count + added,
          title = CASE WHEN sessions.title = '' AND p_title <> '' THEN p_title ELSE sessions.title END;
    END IF;
    IF p_media IS NOT NULL THEN
      INSERT INTO session_media (session_id, sha256) SELECT p_session, h FROM json_array_elements_text(p_media::json) AS h
        ON CONFLICT DO NOTHING;
    END IF;
    PERFORM set_config('prx.messages_counted', 'on', true);
    INSERT INTO session_messages (session_id, seq, role, content, tool_calls, tool_call_id, name, media, usage, created_at)
      SELECT p_session, base.seq + e.n, e.m->>'role', e.m->>'content', e.m->>'tool_calls', e.m->>'tool_call_id', e.m->>'name',
        e.m->>'media', e.m->>'usage', e.m->>'created_at'
      FROM (SELECT COALESCE(MAX(t.seq), 0) AS seq FROM session_messages t WHERE t.session_id = p_session) base,
        json_array_elements(p_messages::json) WITH ORDINALITY AS e(m, n)
      ORDER BY e.n;
    PERFORM set_config('prx.messages_counted', '', true);
  END IF;
  IF p_release THEN
    COMMIT;
    released := pg_advisory_unlock(hashtext('prx.session'), hashtext(p_session));
  END IF;
END
$turn$;`;
