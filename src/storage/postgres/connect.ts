import { SQL } from "bun";
import { errorMessage, PrxError } from "../../core/errors.ts";
export { urlFromEnv } from "../env.ts";

/** How long opening a PostgreSQL connection may take before the start fails. */
export const PG_CONNECT_TIMEOUT_S = 10;
/** Idle PostgreSQL connections are closed after this long. */
export const PG_IDLE_TIMEOUT_S = 30;

export interface PgOptions {
  url: string;
  /** Schema holding prx's tables (created when missing); search_path of every connection. */
  schema: string;
  max: number;
  /** PostgreSQL's synchronous_commit for this pool's sessions (default off; see [storage] synchronous_commit). */
  synchronousCommit?: boolean;
}

/** The search_path of prx's connections: its schema, then public (where pgvector is installed). */
export function searchPathFor(schema: string): string {
  return schema === "public" ? "public" : `${schema},public`;
}

/** A pool of PostgreSQL connections whose search_path is prx's schema. */
export function openPg(options: PgOptions): SQL {
  return new SQL(options.url, {
    max: options.max,
    idleTimeout: PG_IDLE_TIMEOUT_S,
    connectionTimeout: PG_CONNECT_TIMEOUT_S,
    connection: {
      search_path: searchPathFor(options.schema),
      synchronous_commit: options.synchronousCommit === true ? "on" : "off",
    },
  });
}

/** Wrap a driver failure as STORAGE naming the operation. */
export function pgFailure(operation: string, cause: unknown): PrxError {
  if (cause instanceof PrxError) return cause;
  return new PrxError("STORAGE", `postgres ${operation} failed: ${errorMessage(cause)}`, {
    cause,
    hint: "check that the database in [storage] url_env is reachable (prx storage status)",
  });
}

/** Run `body`, turning driver errors into STORAGE errors. */
export async function pg<T>(operation: string, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (cause) {
    throw pgFailure(operation, cause);
  }
}
