/** Sessions live in src/storage (SQLite and PostgreSQL behind one interface); the agent's names for them. */
export { SqliteSessionStore } from "../storage/sqlite/sessions.ts";
export { validateSessionId } from "../storage/session-history.ts";
export { SESSION_ID_MAX_BYTES, SESSION_ID_PATTERN, SESSION_TITLE_CHARS } from "../storage/limits.ts";
