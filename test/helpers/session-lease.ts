import { SQL } from "bun";
import { TEST_DATABASE_URL } from "./servers.ts";

/**
 * Ends the PostgreSQL connections holding the lease of `sessionId` (the backend of a process killed mid-turn): its
 * lock goes with them, so another process can take the session on. Returns how many were ended.
 */
export async function endSessionLease(sessionId: string): Promise<number> {
  const sql = new SQL(TEST_DATABASE_URL, { max: 1 });
  try {
    const ended = await sql.unsafe(
      "SELECT pg_terminate_backend(pid) AS ended FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 " +
        "AND classid = hashtext('prx.session')::oid AND objid = hashtext($1)::oid",
      [sessionId],
    );
    return ended.filter((row: { ended: boolean }) => row.ended).length;
  } finally {
    await sql.close();
  }
}
