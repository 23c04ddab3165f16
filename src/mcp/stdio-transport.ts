import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage, PrxError } from "../core/errors.ts";
import { jsonDepthError } from "../core/json/index.ts";
import { isPlainResultResponse } from "./fast-accept.ts";
import type { Logger } from "../core/logger.ts";
import { becomeSubreaper, ProcessTree, waitAtMost } from "../core/supervise/index.ts";
import { LineDecoder } from "../plugins/remote/protocol/index.ts";
import { reapOnExit, signalGroup, stopProcessGroup } from "./process-group.ts";
import { MCP_MAX_MESSAGE_BYTES, MCP_STDERR_LINE_MAX_BYTES, MCP_STDERR_TAIL_LINES } from "./limits.ts";

export interface StdioLaunch {
  server: string;
  /** An absolute path (see resolveCommand). */
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** `mcp.<server>`: the server's stderr lines go here. */
  logger: Logger;
}

/**
 * The client side of an MCP stdio server, for the SDK's Client: one JSON-RPC message per line on the child's stdin
 * and stdout. Unlike the SDK's own stdio transport it bounds a line (MCP_MAX_MESSAGE_BYTES: past it the server is
 * stopped and the reason kept), skips lines that are not JSON-RPC (counted, the first one logged as a warning),
 * sends stderr to prx's log line by line with the server's name, and runs the server in its own process group so
 * closing it reaches everything it started.
 */
export class StdioClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** Lines on stdout that were not JSON-RPC messages. */
  garbageLines = 0;
  /** Why the process is gone, once it is (exit code or signal, or the oversize line that stopped it). */
  exitReason: string | null = null;
  private proc: Bun.Subprocess<"pipe", "pipe", "pipe"> | null = null;
  private readonly tail: string[] = [];
  private stopReason: string | null = null;
  private closed = false;
  /** Resolves once the process is gone and exitReason is set. */
  private gone: Promise<void> = Promise.resolve();

  constructor(private readonly launch: StdioLaunch) {}

  get pid(): number | null {
    return this.proc?.pid ?? null;
  }

  /** The last stderr lines (at most MCP_STDERR_TAIL_LINES), for error messages. */
  stderrTail(): string[] {
    return [...this.tail];
  }

  async start(): Promise<void> {
    const { command, args, env, cwd, server } = this.launch;
    // what the server starts (a setsid or a double fork too) is found through its tree and ends with it
    await becomeSubreaper();
    const tree = new ProcessTree(`mcp-${server}`);
    try {
      this.proc = Bun.spawn([command, ...args], { cwd, env: tree.env(env), stdin: "pipe", stdout: "pipe", stderr: "pipe", detached: true });
      tree.adopt(this.proc.pid);
    } catch (cause) {
      void tree.reap();
      throw new PrxError("MCP_UNAVAILABLE", `MCP server "${server}": cannot start ${command}: ${errorMessage(cause)}`, {
        cause,
        hint: `check command, args and cwd of [mcp.servers.${server}] in config.toml`,
      });
    }
    const proc = this.proc;
    const forget = reapOnExit(proc.pid);
    const stdout = new LineDecoder(
      (line) => this.receive(line),
      (bytes) => this.stop(`it sent a message of ${bytes} bytes, over the limit of ${MCP_MAX_MESSAGE_BYTES}`),
      MCP_MAX_MESSAGE_BYTES,
    );
    const stderr = new LineDecoder(
      (line) => this.logStderr(line),
      (bytes) => this.logStderr(`<a stderr line of ${bytes} bytes, over ${MCP_STDERR_LINE_MAX_BYTES}, left out>`),
      MCP_STDERR_LINE_MAX_BYTES,
    );
    const pump = async (stream: ReadableStream<Uint8Array>, decoder: LineDecoder) => {
      for await (const chunk of stream) decoder.push(chunk);
    };
    const reading = Promise.all([pump(proc.stdout, stdout), pump(proc.stderr, stderr)]).catch((error: unknown) =>
      this.launch.logger.warn(`reading the output of MCP server "${server}" failed`, { error: errorMessage(error) }),
    );
    this.gone = proc.exited.then(async (code) => {
      forget();
      // whatever the server left behind (in its group or escaped from it) would hold the pipes open: it goes with it
      signalGroup(proc.pid, "SIGKILL");
      await tree.reap();
      await reading;
      const signal = proc.signalCode;
      this.exitReason ??= this.stopReason ?? (signal ? `it was killed by ${signal}` : `it exited with code ${code}`);
      this.closed = true;
      this.onclose?.();
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const proc = this.proc;
    if (!proc || this.closed || this.exitReason) {
      throw new PrxError("MCP_UNAVAILABLE", `MCP server "${this.launch.server}" is not running${this.exitReason ? `: ${this.exitReason}` : ""}`);
    }
    const failed = (cause: unknown) =>
      new PrxError("MCP_UNAVAILABLE", `MCP server "${this.launch.server}" stopped reading: ${errorMessage(cause)}`, { cause });
    try {
      proc.stdin.write(JSON.stringify(message) + "\n");
      const flushed = proc.stdin.flush();
      if (flushed instanceof Promise) await flushed;
    } catch (cause) {
      throw failed(cause);
    }
  }

  /** Wait up to `ms` for the process to end by itself; true when it has. */
  async endedWithin(ms: number): Promise<boolean> {
    return (await waitAtMost(this.gone, ms)) && this.exitReason !== null;
  }

  /** End stdin, then SIGTERM and SIGKILL the process group if it lingers; resolves once the process is reaped. */
  async close(): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    if (proc.exitCode === null && proc.signalCode === null) this.stopReason ??= "prx closed it";
    await stopProcessGroup(proc, this.launch.logger);
    await this.gone;
  }

  private stop(reason: string): void {
    this.stopReason = reason;
    this.launch.logger.error(`MCP server "${this.launch.server}" stopped: ${reason}`);
    if (this.proc) void stopProcessGroup(this.proc, this.launch.logger, true);
  }

  private receive(line: string): void {
    // like a line over the size limit, one nested too deeply stops the server: the calls waiting fail naming it
    const deep = jsonDepthError(line, "it sent a message");
    if (deep) return this.stop(deep.message);
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      return this.garbage(line, errorMessage(error));
    }
    if (isPlainResultResponse(value)) return this.onmessage?.(value);
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) return this.garbage(line, "not a JSON-RPC 2.0 message");
    this.onmessage?.(parsed.data);
  }

  private garbage(line: string, why: string): void {
    this.garbageLines++;
    const shown = line.length > 200 ? `${line.slice(0, 200)}...` : line;
    const level = this.garbageLines === 1 ? "warn" : "debug";
    this.launch.logger[level](`MCP server "${this.launch.server}" wrote a line that is not protocol on stdout; skipped (${why})`, {
      line: shown,
      count: this.garbageLines,
      hint: "a stdio server must write only JSON-RPC to stdout and its logs to stderr",
    });
  }

  private logStderr(line: string): void {
    this.tail.push(line.length > 300 ? `${line.slice(0, 300)}...` : line);
    if (this.tail.length > MCP_STDERR_TAIL_LINES) this.tail.shift();
    this.launch.logger.info(line);
  }
}
