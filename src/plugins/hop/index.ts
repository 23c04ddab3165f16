/** Keeping a hop between threads or processes awake: shared counts of the messages posted, bounded watches of them. */
export { Linger, lingerWindowUs, type LingerOptions, type LingerStats, type Watch } from "./linger.ts";
export { LINGER_MAX_SKIPS } from "./limits.ts";
export { Mailbox } from "./mailbox.ts";
