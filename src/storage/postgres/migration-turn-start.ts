import { LEASE_START_COLUMNS, LOCKED_HISTORY } from "./migration-lease-start.ts";

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
RETURNS TABLE (${LEASE_START_COLUMNS},
  memories_present BOOLEAN)
LANGUAGE plpgsql VOLATILE AS $turn$${LOCKED_HISTORY}
    SELECT true, NULL::INTEGER, NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::TEXT,
      s.from_seq, s.through_seq, s.content, s.model, s.created_at,
      CASE WHEN memories_asked THEN EXISTS (SELECT 1 FROM memories) END
    FROM (SELECT 1) one LEFT JOIN s ON true
    UNION ALL
    SELECT true, h.*, NULL::INTEGER, NULL::INTEGER, NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::BOOLEAN FROM h
    ORDER BY 2 ASC NULLS FIRST;
END
$turn$;`;
