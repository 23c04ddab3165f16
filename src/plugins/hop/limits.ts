/**
 * A watch that saw nothing come skips the next 1, 3, 7, ... watches of its side (a slow plugin, or a busy machine
 * where watching would hold the CPU the other side needs), at most this many in a row; one that saw its message
 * come resets it.
 */
export const LINGER_MAX_SKIPS = 63;
