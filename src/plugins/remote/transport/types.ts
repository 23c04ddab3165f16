import type { HopBoxes } from "../hop/index.ts";
import type { RefusedDetail, RefusedKind } from "../types.ts";

/** The host side of one running Worker or subprocess. Messages are JSON texts (the supervisor decodes them). */
export interface HostTransport {
  readonly kind: "worker" | "process";
  readonly pid: number | null;
  send(text: string): void;
  /**
   * A call was just sent: watch for an answer for a bounded moment once this turn is done (REMOTE_ANSWER_WAIT_US),
   * where the transport can (a Worker; a subprocess whose launcher counts its lines in the mapped hop).
   */
  expectAnswer(): void;
  /** The counts of messages each side posted (shared memory, or a page both processes map), or null. */
  readonly hop: HopBoxes | null;
  /** Called with each received text. */
  onMessage(handler: (text: string) => void): void;
  /**
   * Input refused by the transport itself (a line over the cap, a line that is not a JSON object, a non-string
   * postMessage), `count` of them in a row. The detail (of the first) may be a function: it is only made when it is
   * logged.
   */
  onRefused(handler: (kind: RefusedKind, detail: RefusedDetail, count: number) => void): void;
  /** Once, when the worker/process is gone. */
  onExit(handler: (code: number | null, reason: string) => void): void;
  kill(): void;
  stderrTail(): string[];
}
