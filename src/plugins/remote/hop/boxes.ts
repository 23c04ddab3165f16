import { Mailbox } from "../../hop/index.ts";

/** The shared memory of a Worker's hop: one count of messages per direction (a subprocess maps a file instead, process-hop.ts). */
export interface HopBuffers {
  toPlugin: SharedArrayBuffer;
  toHost: SharedArrayBuffer;
}

/** Key of the hop's buffers in a plugin Worker's workerData. */
export const HOP_WORKER_DATA_KEY = "prxRemoteHop";

/** Counts of the messages each side posted, which the other side watches (plugins/hop/mailbox.ts). */
export class HopBoxes {
  readonly toPlugin: Mailbox;
  readonly toHost: Mailbox;

  constructor(buffers?: HopBuffers | { toPlugin: Int32Array; toHost: Int32Array }) {
    this.toPlugin = new Mailbox(buffers?.toPlugin);
    this.toHost = new Mailbox(buffers?.toHost);
  }

  /** Counts in memory a subprocess maps too (process-hop.ts). */
  static over(toPlugin: Int32Array, toHost: Int32Array): HopBoxes {
    return new HopBoxes({ toPlugin, toHost });
  }

  /** A Worker's hop only: its SharedArrayBuffers, to pass in workerData. */
  get buffers(): HopBuffers {
    return { toPlugin: this.toPlugin.buffer, toHost: this.toHost.buffer };
  }

  /** The boxes a host gave this Worker, or null (a subprocess, a Worker started by other code, a foreign value). */
  static ofWorkerData(data: unknown): HopBoxes | null {
    const buffers = (data as Record<string, unknown> | null | undefined)?.[HOP_WORKER_DATA_KEY] as Partial<HopBuffers> | undefined;
    const valid = (b: unknown): b is SharedArrayBuffer => b instanceof SharedArrayBuffer && b.byteLength >= 4;
    if (!buffers || !valid(buffers.toPlugin) || !valid(buffers.toHost)) return null;
    return new HopBoxes({ toPlugin: buffers.toPlugin, toHost: buffers.toHost });
  }
}
