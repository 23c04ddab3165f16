import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Writable } from "node:stream";
import { MCP_SERVE_DRAIN_MS } from "../limits.ts";
import { createMcpServer } from "./server.ts";
import type { ServedTools } from "./exposed.ts";

/**
 * Keep stdout for the protocol: from here on whatever else would write to it (console.log in prx, a plugin, a
 * dependency) goes to stderr. Returns the only writer left on stdout.
 */
export function reserveStdout(): Pick<Writable, "write" | "once"> {
  const stdout = process.stdout;
  const write = stdout.write.bind(stdout);
  stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) =>
    (process.stderr.write as (...args: unknown[]) => boolean)(chunk, ...rest)) as typeof stdout.write;
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  console.trace = toStderr;
  console.dir = toStderr;
  console.table = toStderr;
  return { write: write as Writable["write"], once: stdout.once.bind(stdout) as Writable["once"] };
}

/**
 * Serve MCP on stdin and `stdout` (from reserveStdout) until the client closes stdin (or a signal arrives), then
 * answer the requests already read (up to MCP_SERVE_DRAIN_MS) and resolve. Logs go to stderr.
 */
export async function serveStdio(
  tools: ServedTools,
  version: string,
  stdout: Pick<Writable, "write" | "once"> = reserveStdout(),
): Promise<void> {
  const server = createMcpServer(tools, version);
  const transport = new StdioServerTransport(process.stdin, stdout as Writable);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  await server.connect(transport);
  const pending = trackRequests(transport);
  await closed;
  await pending.settled(MCP_SERVE_DRAIN_MS);
  await server.close();
}

/** Requests read from the client and not answered yet; `settled` waits (bounded) until there are none. */
function trackRequests(transport: StdioServerTransport): { settled(maxMs: number): Promise<void> } {
  const open = new Set<string | number>();
  let idle: (() => void) | undefined;
  const receive = transport.onmessage!;
  transport.onmessage = (message: JSONRPCMessage) => {
    if ("method" in message && "id" in message) open.add(message.id);
    receive(message);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    await send(message);
    if (("result" in message || "error" in message) && "id" in message && message.id !== undefined) {
      open.delete(message.id);
      if (open.size === 0) idle?.();
    }
  };
  return {
    async settled(maxMs) {
      if (open.size === 0) return;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        new Promise<void>((resolve) => (idle = resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, maxMs))),
      ]);
      clearTimeout(timer);
    },
  };
}
