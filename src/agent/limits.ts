/**
 * Longest user message a turn takes, in characters (UTF-16 units, as JavaScript counts them), from every entry point:
 * the gateway's APIs (each message of a request), channels, `prx chat` and `prx agent` (its -m and each stdin line).
 */
export const USER_MESSAGE_MAX_CHARS = 256 * 1024;
