import type { Database } from "bun:sqlite";
import type { SessionLink, SessionLinkStore } from "../types.ts";
import { migrateSqlite } from "./schema.ts";

interface LinkRow {
  child_id: string;
  parent_id: string;
  depth: number;
  created_at: number;
}

const toLink = (row: LinkRow): SessionLink => ({ childId: row.child_id, parentId: row.parent_id, depth: row.depth, createdAt: row.created_at });

/** Which session made which, in the workspace file. */
export class SqliteSessionLinkStore implements SessionLinkStore {
  constructor(private readonly db: Database) {
    migrateSqlite(db);
  }

  link(link: SessionLink): void {
    this.db
      .query("INSERT INTO session_links (child_id, parent_id, depth, created_at) VALUES (?, ?, ?, ?)")
      .run(link.childId, link.parentId, link.depth, link.createdAt);
  }

  parentOf(childId: string): SessionLink | null {
    const row = this.db.query<LinkRow, [string]>("SELECT * FROM session_links WHERE child_id = ?").get(childId);
    return row ? toLink(row) : null;
  }

  children(parentId: string, limit: number): SessionLink[] {
    return this.db
      .query<LinkRow, [string, number]>("SELECT * FROM session_links WHERE parent_id = ? ORDER BY created_at, child_id LIMIT ?")
      .all(parentId, limit)
      .map(toLink);
  }

  unlink(childId: string): void {
    this.db.query("DELETE FROM session_links WHERE child_id = ?").run(childId);
  }
}
