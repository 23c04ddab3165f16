/**
 * `prx_turn_start(session, history_limit, memories_asked)`: prx_lease_start (migration-lease-start.ts) that also says
 * whether memory holds any entry, so a turn on an empty store recalls nothing without a round trip of its own. It
 * tries the session's advisory lock; not taken, one row with `got` false. Taken, a first row (`seq` null) with the
 * newest summary (null columns: none) and `memories_present` (whether `memories` has a row; null when not asked),
 * then the last `history_limit` messages after the summary, oldest first; `got` true on each. The reads are one
 * statement of the function (VOLATILE: a fresh snapshot, taken after the lock), so they see every write committed
 * before the lock was released to this caller, a memory stored by any process included. prx_lease_start stays for
 * processes of an earlier version.
 */
export const TURN_START_SQL = `
CREATE OR REPLACE FUNCTION prx_turn_start(session TEXT, history_limit INTEGER, memories_asked BOOLEAN)
RETURNS TABLE (got BOOLEAN, seq INTEGER, role TEXT, content TEXT, tool_calls TEXT, tool_call_id TEXT, name TEXT, media TEXT,
  summary_from_seq INTEGER, summary_through_seq INTEGER, summary_content TEXT, summary_model TEXT, summary_created_at TEXT,
  memories_present BOOLEAN)
LANGUAGE plpgsql VOLATILE AS $turn$
#variable_conflict use_column
BEGIN
  IF NOT pg_try_advisory_lock(hashtext('prx.session'), hashtext(session)) THEN
    got := false;
    RETURN NEXT;
    RETURN;
  END IF;
  RETURN QUERY
    WITH s AS (SELECT * FROM session_summaries t WHERE t.session_id = session ORDER BY t.through_seq DESC LIMIT 1),
      h AS (SELECT m.seq, m.role, m.content, m.tool_calls, m.tool_call_id, m.name, m.media FROM session_messages m
        WHERE m.session_id = session AND m.seq > COALESCE((SELECT s.through_seq FROM s), 0) ORDER BY m.seq DESC LIMIT history_limit)
    SELECT true, NULL::INTEGER, NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::TEXT,
      s.from_seq, s.through_seq, s.content, s.model, s.created_at,
      CASE WHEN memories_asked THEN EXISTS (SELECT 1 FROM memories) END
    FROM (SELECT 1) one LEFT JOIN s ON true
    UNION ALL
    SELECT true, h.*, NULL::INTEGER, NULL::INTEGER, NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::BOOLEAN FROM h
    ORDER BY 2 ASC NULLS FIRST;
END
$turn$;`;
