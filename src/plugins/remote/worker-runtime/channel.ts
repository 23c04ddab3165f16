import { writeSync } from "node:fs";
import { workerData } from "node:worker_threads";
import { Linger } from "../../hop/index.ts";
import { childProcessHop, HopBoxes } from "../hop/index.ts";
import { BatchedWriter, LineDecoder, decodeText, encodeMessage, preview } from "../protocol/index.ts";
import { REMOTE_LINGER_US, REMOTE_MAX_MESSAGE_BYTES, REMOTE_MAX_MESSAGE_DEPTH } from "../limits.ts";
import { readStdin } from "./stdin-reader.ts";

/** The worker side's view of its transport. Messages are plain objects; the transport does the encoding. */
export interface WorkerChannel {
  send(message: object): void;
  /** Subscribe to host -> worker messages. Returns an unsubscribe function. */
  onMessage(handler: (message: unknown) => void): () => void;
  /**
   * A call was answered: the transport may watch for the host's next message for REMOTE_LINGER_US once this turn is
   * done, if `idle` (asked then) says no other call is running.
   */
  afterAnswer?(idle: () => boolean): void;
  close(): void;
}

export type ChannelProblem = { kind: "malformed" | "oversize"; detail: string };
/** Where a transport reports input it refused (the bootstrap counts it, logs it and tells the host). */
export type ProblemSink = (problem: ChannelProblem) => void;

class Subscribers {
  private readonly handlers = new Set<(message: unknown) => void>();
  add(handler: (message: unknown) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }
  emit(message: unknown): void {
    for (const handler of this.handlers) handler(message);
  }
  clear(): void {
    this.handlers.clear();
  }
}

interface WorkerScope {
  postMessage(message: unknown): void;
  addEventListener(type: "message", handler: (event: MessageEvent) => void): void;
  removeEventListener(type: "message", handler: (event: MessageEvent) => void): void;
}

/**
 * Bun Worker thread: one JSON string per postMessage. With the host's hop counts (`hop`, from workerData), each
 * message posted is counted, and after an answer the thread watches the host's count for its next message.
 */
export function createWorkerChannel(
  onProblem: ProblemSink = () => {},
  hop: HopBoxes | null = HopBoxes.ofWorkerData(workerData),
): WorkerChannel {
  const scope = globalThis as unknown as WorkerScope;
  const subscribers = new Subscribers();
  const linger = new Linger(hop ? REMOTE_LINGER_US : 0);
  let closed = false;
  const listener = (event: MessageEvent): void => {
    if (closed) return;
    if (typeof event.data !== "string") {
      onProblem({ kind: "malformed", detail: `non-string message of type ${typeof event.data}` });
      return;
    }
    const decoded = decodeText(event.data);
    if (decoded.ok) subscribers.emit(decoded.value);
    else onProblem({ kind: decoded.reason, detail: decoded.detail });
  };
  scope.addEventListener("message", listener);
  return {
    send(message) {
      if (closed) return;
      scope.postMessage(encodeMessage(message, REMOTE_MAX_MESSAGE_BYTES, REMOTE_MAX_MESSAGE_DEPTH));
      hop?.toHost.posted();
    },
    onMessage: (handler) => subscribers.add(handler),
    afterAnswer(idle) {
      if (!hop) return;
      const box = hop.toPlugin;
      const seen = box.seen();
      linger.soon((windowUs) => box.linger(seen, windowUs), () => !closed && idle());
    },
    close() {
      if (closed) return;
      closed = true;
      subscribers.clear();
      scope.removeEventListener("message", listener);
    },
  };
}

/**
 * Stdout writes go straight to fd 1 (one write(2), no stream machinery: the reply is on its way before the
 * event loop turns, ~10-20 us less per round trip than a FileSink here). What a non-blocking stdout cannot take
 * at once goes through the FileSink, and so does everything after it, in order.
 */
function stdoutWriter(): (chunk: string) => void {
  let sink: ReturnType<typeof Bun.stdout.writer> | null = null;
  return (chunk) => {
    if (sink) {
      sink.write(chunk);
      void sink.flush();
      return;
    }
    let written = 0;
    try {
      written = writeSync(1, chunk);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // EPIPE: the host is gone; stdin's end (onEnd) shuts the plugin down, and nobody is left to read this.
      if (code === "EPIPE") return;
      if (code !== "EAGAIN") throw error;
    }
    if (written === Buffer.byteLength(chunk)) return;
    sink = Bun.stdout.writer();
    sink.write(Buffer.from(chunk).subarray(written));
    void sink.flush();
  };
}

/**
 * Subprocess: newline-delimited JSON, host -> stdin, stdout -> host. Writes of one tick are batched into one.
 * `onEnd` runs when stdin closes (the host went away). With the hop's counts the host mapped for it (`hop`,
 * process-hop.ts), each write is counted once it is out, and after an answer the process watches the host's count
 * for its next line, as a plugin Worker does.
 */
export function createStdioChannel(
  onProblem: ProblemSink = () => {},
  onEnd: () => void = () => {},
  hop: HopBoxes | null = childProcessHop(),
): WorkerChannel {
  const subscribers = new Subscribers();
  const write = stdoutWriter();
  const writer = new BatchedWriter(
    hop
      ? (chunk) => {
          write(chunk);
          hop.toHost.posted();
        }
      : write,
  );
  const linger = new Linger(hop ? REMOTE_LINGER_US : 0);
  let closed = false;
  const decoder = new LineDecoder(
    (line) => {
      const decoded = decodeText(line);
      if (decoded.ok) subscribers.emit(decoded.value);
      else onProblem({ kind: decoded.reason, detail: decoded.detail });
    },
    (bytes) => onProblem({ kind: "oversize", detail: `input line of ${bytes} bytes` }),
  );
  const stop = readStdin({
    data: (chunk) => decoder.push(chunk),
    end: () => {
      if (!closed) onEnd();
    },
    error: (cause) => {
      if (!closed) onProblem({ kind: "malformed", detail: `stdin read failed: ${preview(String(cause))}` });
    },
  });
  return {
    send(message) {
      if (!closed) writer.write(encodeMessage(message, REMOTE_MAX_MESSAGE_BYTES, REMOTE_MAX_MESSAGE_DEPTH) + "\n");
    },
    onMessage: (handler) => subscribers.add(handler),
    afterAnswer(idle) {
      if (!hop) return;
      const box = hop.toPlugin;
      const seen = box.seen();
      linger.soon((windowUs) => box.linger(seen, windowUs), () => !closed && idle());
    },
    close() {
      if (closed) return;
      writer.flush();
      closed = true;
      subscribers.clear();
      stop();
    },
  };
}

export const REMOTE_CHANNEL_ENV = "PRX_REMOTE_PLUGIN_CHANNEL";
export const ELIZA_REMOTE_CHANNEL_ENV = "ELIZA_REMOTE_PLUGIN_CHANNEL";

export function isStdioMode(env: Record<string, string | undefined> = process.env): boolean {
  return env[REMOTE_CHANNEL_ENV] === "stdio" || env[ELIZA_REMOTE_CHANNEL_ENV] === "stdio";
}

/** Worker channel by default; stdio when PRX_REMOTE_PLUGIN_CHANNEL=stdio (or ELIZA_REMOTE_PLUGIN_CHANNEL=stdio). */
export function createDefaultChannel(onProblem?: ProblemSink, onEnd?: () => void): WorkerChannel {
  return isStdioMode() ? createStdioChannel(onProblem, onEnd) : createWorkerChannel(onProblem);
}
