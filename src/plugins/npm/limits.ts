/** Bounds of installing elizaOS plugins from npm. */

/** One `bun install` / `bun add` of a plugin folder (download and link). */
export const NPM_INSTALL_TIMEOUT_MS = 300_000;
/** Characters of the installer's stderr kept in an error (its last lines say why). */
export const NPM_INSTALL_ERROR_CHARS = 4_000;
