import type { SQL } from "bun";
import type { SessionLink, SessionLinkStore } from "../types.ts";
import { pg } from "./connect.ts";

interface LinkRow {
  child_id: string;
  parent_id: string;
  depth: number;
  created_at: number;
}

const toLink = (row: LinkRow): SessionLink => ({
  childId: row.child_id,
  parentId: row.parent_id,
  depth: Number(row.depth),
  createdAt: Number(row.created_at),
});

/** Which session made which, in PostgreSQL (every replica sees a child's parent). */
export class PgSessionLinkStore implements SessionLinkStore {
  constructor(private readonly sql: SQL) {}

  async link(link: SessionLink): Promise<void> {
    await pg("session link", () =>
      this.sql.unsafe("INSERT INTO session_links (child_id, parent_id, depth, created_at) VALUES ($1, $2, $3, $4)", [
        link.childId,
        link.parentId,
        link.depth,
        link.createdAt,
      ]),
    );
  }

  parentOf(childId: string): Promise<SessionLink | null> {
    return pg("session parent", async () => {
      const rows = (await this.sql.unsafe("SELECT * FROM session_links WHERE child_id = $1", [childId])) as LinkRow[];
      return rows[0] ? toLink(rows[0]) : null;
    });
  }

  children(parentId: string, limit: number): Promise<SessionLink[]> {
    return pg("session children", async () => {
      const rows = (await this.sql.unsafe("SELECT * FROM session_links WHERE parent_id = $1 ORDER BY created_at, child_id LIMIT $2", [
        parentId,
        limit,
      ])) as LinkRow[];
      return rows.map(toLink);
    });
  }

  async unlink(childId: string): Promise<void> {
    await pg("session unlink", () => this.sql.unsafe("DELETE FROM session_links WHERE child_id = $1", [childId]));
  }
}
