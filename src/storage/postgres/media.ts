import type { SQL } from "bun";
import type { MediaStore, StoredMedia } from "../types.ts";
import { pg } from "./connect.ts";

/** Images and audio by content hash in PostgreSQL, so every replica sees what any of them received. */
export class PgMediaStore implements MediaStore {
  constructor(private readonly sql: SQL) {}

  async put(media: StoredMedia): Promise<void> {
    await pg("media put", () =>
      this.sql.unsafe(
        "INSERT INTO media_blobs (sha256, mime, size, data, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (sha256) DO NOTHING",
        [media.sha256, media.mime, media.data.length, Buffer.from(media.data), new Date().toISOString()],
      ),
    );
  }

  get(sha256: string): Promise<StoredMedia | null> {
    return pg("media get", async () => {
      const rows = (await this.sql.unsafe("SELECT sha256, mime, data FROM media_blobs WHERE sha256 = $1", [sha256])) as Array<{
        sha256: string;
        mime: string;
        data: Uint8Array;
      }>;
      const row = rows[0];
      return row ? { sha256: row.sha256, mime: row.mime, data: new Uint8Array(row.data) } : null;
    });
  }

  count(): Promise<number> {
    return pg("media count", async () =>
      Number(((await this.sql.unsafe("SELECT count(*) AS n FROM media_blobs")) as Array<{ n: number | string }>)[0]?.n ?? 0),
    );
  }
}
