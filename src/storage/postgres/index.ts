/** The PostgreSQL side of src/storage, loaded only where it is used (a SQLite workspace never loads it). */
export { pgStorage, type PgStorage, type PgStorageOptions } from "./open.ts";
export { openPg, pg, pgFailure } from "./connect.ts";
export { migratePg, pgStatus, PG_MIGRATIONS } from "./migrations.ts";
export { copyPgToSqlite, copySqliteToPg, type CopiedTable } from "./copy.ts";
