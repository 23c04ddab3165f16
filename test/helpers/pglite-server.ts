/**
 * PostgreSQL 18 with pgvector, in-process: PGlite (PostgreSQL compiled to WASM) with the pgvector 0.8.7 extension,
 * served over the PostgreSQL wire protocol on a free 127.0.0.1 port, so the product's Bun.sql pools talk to it as to
 * any server. The machine's PostgreSQL has no pgvector; this is where the vector paths run.
 *
 * PGlite is one backend behind the socket server: connections take turns query by query (an open transaction keeps
 * the turn), they share one session (so session advisory locks never block between them), and Bun.sql's named
 * prepared statements would collide across connections, hence `prepare=false` in the URL.
 */
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

/** Connections the socket server accepts: a store's main pool, its session-lease pool and a test's own. */
const MAX_CONNECTIONS = 16;

export interface PgliteServer {
  url: string;
  stop(): Promise<void>;
}

export async function startPglite(): Promise<PgliteServer> {
  const db = await PGlite.create({ extensions: { vector } });
  const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1", maxConnections: MAX_CONNECTIONS });
  await server.start();
  return {
    url: `postgres://postgres@${server.getServerConn()}/postgres?prepare=false`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
