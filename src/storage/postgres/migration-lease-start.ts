/**
 * `prx_lease_start(session, history_limit)`: a session lease's start in one statement (one query of the driver, one
 * round trip). It tries the session's advisory lock (as session-leases.ts keys it); not taken, one row with `got`
 * false. Taken, the turn's history and newest summary as history-prefetch.ts reads them: the summary first as a row
 * of its own, then the last `history_limit` messages after it, oldest first; `got` true on each (no row: neither).
 * The read is a statement of its own inside the function (VOLATILE: a fresh snapshot, taken after the lock), so it
 * sees every write committed before the lock was released to this caller.
 */
/** The columns of a lease start's rows (prx_lease_start; prx_turn_start adds its own after them). */
export const LEASE_START_COLUMNS = `got BOOLEAN, seq INTEGER, role TEXT, content TEXT, tool_calls TEXT, tool_call_id TEXT, name TEXT, media TEXT,
  summary_from_seq INTEGER, summary_through_seq INTEGER, summary_content TEXT, summary_model TEXT, summary_created_at TEXT`;

/**
 * A lease start's body up to its read: the lock tried (not taken: one row with `got` false), then `RETURN QUERY` with
 * the newest summary (`s`) and the last `history_limit` messages after it (`h`), for the SELECT that follows.
 */
export const LOCKED_HISTORY = `
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
        WHERE m.session_id = session AND m.seq > COALESCE((SELECT s.through_seq FROM s), 0) ORDER BY m.seq DESC LIMIT history_limit)`;

export const LEASE_START_SQL = `
CREATE OR REPLACE FUNCTION prx_lease_start(session TEXT, history_limit INTEGER)
RETURNS TABLE (${LEASE_START_COLUMNS})
LANGUAGE plpgsql VOLATILE AS $lease$${LOCKED_HISTORY}
    SELECT true, h.*, NULL::INTEGER, NULL::INTEGER, NULL::TEXT, NULL::TEXT, NULL::TEXT FROM h
    UNION ALL
    SELECT true, NULL, NULL, NULL, NULL, NULL, NULL, NULL, s.from_seq, s.through_seq, s.content, s.model, s.created_at FROM s
    ORDER BY 2 ASC NULLS FIRST;
END
$lease$;`;
