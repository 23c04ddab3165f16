import type { Database } from "bun:sqlite";
import type { MediaStore, StoredMedia } from "../types.ts";
import { migrateSqlite } from "./schema.ts";

/** Images and audio by content hash in the workspace SQLite file. */
export class SqliteMediaStore implements MediaStore {
  constructor(private readonly db: Database) {
    migrateSqlite(db);
  }

  put(media: StoredMedia): void {
    this.db
      .query("INSERT OR IGNORE INTO media_blobs (sha256, mime, size, data, created_at) VALUES (?, ?, ?, ?, ?)")
      .run(media.sha256, media.mime, media.data.length, media.data, new Date().toISOString());
  }

  get(sha256: string): StoredMedia | null {
    const row = this.db
      .query<{ sha256: string; mime: string; data: Uint8Array }, [string]>("SELECT sha256, mime, data FROM media_blobs WHERE sha256 = ?")
      .get(sha256);
    return row ? { sha256: row.sha256, mime: row.mime, data: row.data } : null;
  }

  count(): number {
    return this.db.query<{ n: number }, []>("SELECT count(*) AS n FROM media_blobs").get()?.n ?? 0;
  }
}
