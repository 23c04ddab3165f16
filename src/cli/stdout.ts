import { writeSync } from "node:fs";

/**
 * Output piped into a command that exits early (`prx agent ... | head -1`) closes our stdout: stop quietly with 0,
 * as CLI tools do, instead of a stack trace. Commands that print through console.log (the gateway) need no guard:
 * it ignores a closed stdout, and leaving process.stdout untouched spares building Node's stream machinery at start.
 */
export function exitQuietlyOnClosedStdout(): void {
  const quit = (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(0);
  };
  process.stdout.on("error", quit);
}

const encoder = new TextEncoder();
let pause: Int32Array | undefined;

/**
 * Write to stdout with write(2), for commands whose start-up counts (`prx agent -m`): process.stdout builds Node's
 * stream machinery (~4 ms of a cold start). A reader that went away (EPIPE) ends the process quietly with 0, as
 * exitQuietlyOnClosedStdout does; a full non-blocking pipe (EAGAIN) is waited out. Do not mix with process.stdout in
 * one command: the two are not ordered.
 */
export function writeOut(text: string): void {
  const bytes = encoder.encode(text);
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(1, bytes, offset);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EPIPE") process.exit(0);
      if (code !== "EAGAIN") throw error;
      Atomics.wait((pause ??= new Int32Array(new SharedArrayBuffer(4))), 0, 0, 1);
    }
  }
}
