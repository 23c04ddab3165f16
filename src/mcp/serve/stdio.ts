import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { PassThrough, type Readable, type Writable } from "node:stream";
import { jsonDepthError } from "../../core/json/index.ts";
import { LineDecoder } from "../../plugins/remote/protocol/index.ts";
import { MCP_MAX_MESSAGE_BYTES, MCP_SERVE_DRAIN_MS } from "../limits.ts";
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
  const input = boundedInput(process.stdin, stdout);
  const transport = new StdioServerTransport(input.lines, stdout as Writable);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    // the end of the filtered lines comes after the last line reached the transport
    input.lines.once("end", () => resolve());
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  await server.connect(transport);
  const pending = trackRequests(transport);
  await closed;
  await pending.settled(MCP_SERVE_DRAIN_MS);
  await server.close();
  input.stop();
}

/** JSON-RPC's "Invalid Request". */
const INVALID_REQUEST = -32600;

/**
 * The client's lines as the SDK's transport reads them, without those nested deeper than MAX_JSON_DEPTH or longer
 * than MCP_MAX_MESSAGE_BYTES: each of those is answered with a JSON-RPC error (id null: it is never parsed) and
 * logged on stderr, so nothing recursive meets it.
 */
function boundedInput(stdin: Readable, stdout: Pick<Writable, "write">): { lines: Readable; stop(): void } {
  const lines = new PassThrough();
  const refuse = (message: string) => {
    console.error(`prx mcp serve: refused a message: ${message}`);
    stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: INVALID_REQUEST, message } })}\n`);
  };
  const decoder = new LineDecoder(
    (line) => {
      const deep = jsonDepthError(line, "message");
      if (deep) refuse(`${deep.message}; ${deep.hint}`);
      else lines.write(`${line}\n`);
    },
    (bytes) => refuse(`message of ${bytes} bytes exceeds the limit of ${MCP_MAX_MESSAGE_BYTES}`),
    MCP_MAX_MESSAGE_BYTES,
  );
  const read = (chunk: Buffer) => decoder.push(chunk);
  const end = () => lines.end();
  stdin.on("data", read);
  stdin.once("end", end);
  return {
    lines,
    stop() {
      stdin.off("data", read);
      stdin.off("end", end);
      stdin.pause();
    },
  };
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
