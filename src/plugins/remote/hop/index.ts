/** Keeping a remote plugin's hop awake: bounded watches for the other side's next message after a hand-over. */
export { HOP_WORKER_DATA_KEY, HopBoxes, type HopBuffers } from "./boxes.ts";
export { Linger, type LingerOptions, type LingerStats, type Watch } from "./linger.ts";
export { childProcessHop, openProcessHop, REMOTE_HOP_FD_ENV, type ProcessHop } from "./process-hop.ts";
