/** A remote plugin's hop: the two counts of a Worker's (workerData) or a subprocess's (a mapped page) messages. */
export { HOP_WORKER_DATA_KEY, HopBoxes, type HopBuffers } from "./boxes.ts";
export { childProcessHop, openProcessHop, REMOTE_HOP_FD_ENV, type ProcessHop } from "./process-hop.ts";
