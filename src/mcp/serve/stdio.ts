import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Writable } from "node:stream";
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
 * Serve MCP on stdin and `stdout` (from reserveStdout) until the client closes stdin (or a signal arrives); resolves then. Logs go to stderr.
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
  await closed;
  await server.close();
}
