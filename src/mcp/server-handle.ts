import type { McpServerConfig } from "../config/mcp.ts";
import { errorMessage, isPrxError, PrxError } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import { Backoff, RestartPolicy } from "../core/supervise/index.ts";
import type { ToolResult } from "../tools/types.ts";
import type { McpPromptInfo, McpResourceInfo } from "./catalog.ts";
import type { Environment } from "./launch.ts";
import { MCP_RESTART_LIMITS, MCP_START_BACKOFF } from "./limits.ts";
import { toToolResult } from "./result.ts";
import type { ConnectOptions, McpConnection } from "./types.ts";
import { readToolCache, serverFingerprint, writeToolCache } from "./tool-cache.ts";
import type { McpToolInfo } from "./tool-list.ts";

export type McpServerState = "stopped" | "starting" | "ready" | "restarting" | "failed" | "disabled" | "closed";

export interface ServerHandleOptions {
  name: string;
  config: McpServerConfig;
  workspace: { root: string; cacheDir: string };
  env: Environment;
  clientVersion: string;
  logger: Logger;
  /** The known tool list changed (read from the server, or the server said so). */
  onToolsChanged: () => void;
  /** Opens a session; the SDK-backed connectServer, loaded on first use. */
  connect?: (options: ConnectOptions) => Promise<McpConnection>;
  now?: () => number;
}

const loadConnect = async () => (await import("./connection.ts")).connectServer;

/**
 * One configured server: started on first use (or eagerly), restarted with backoff when it dies, its tool list
 * kept (and cached on disk) so a host can offer its tools while it is not running.
 */
export class McpServerHandle {
  state: McpServerState;
  /** Known tools: from the running server, else from the cache, else null (never read). */
  tools: McpToolInfo[] | null = null;
  toolsFrom: "server" | "cache" | null = null;
  calls = 0;
  errors = 0;
  restarts = 0;
  lastError: string | null = null;
  private connection: McpConnection | null = null;
  private starting: Promise<McpConnection> | null = null;
  private listing: Promise<void> | null = null;
  private listAgain = false;
  /** Failed starts in a row: each waits longer before the next start is allowed. */
  private readonly startBackoff = new Backoff(MCP_START_BACKOFF);
  private retryAt = 0;
  private restartTimer: ReturnType<typeof setTimeout> | null = null;
  /** Stops a start in progress when prx closes (a one-shot command must not wait for a server it never called). */
  private readonly closing = new AbortController();
  private readonly crashPolicy: RestartPolicy;
  private readonly now: () => number;
  private readonly fingerprint: string;

  constructor(private readonly options: ServerHandleOptions) {
    this.now = options.now ?? Date.now;
    this.crashPolicy = new RestartPolicy(MCP_RESTART_LIMITS, this.now);
    this.fingerprint = serverFingerprint(options.config);
    this.state = options.config.enabled ? "stopped" : "disabled";
    if (options.config.enabled) {
      this.tools = readToolCache(options.workspace.cacheDir, options.name, this.fingerprint, options.logger);
      if (this.tools) this.toolsFrom = "cache";
    }
  }

  get name(): string {
    return this.options.name;
  }

  get config(): McpServerConfig {
    return this.options.config;
  }

  get pid(): number | null {
    return this.connection?.pid ?? null;
  }

  get transport(): McpConnection["transport"] | null {
    return this.connection?.transport ?? null;
  }

  get garbageLines(): number {
    return this.connection?.garbageLines() ?? 0;
  }

  /** Milliseconds until the next start is allowed after a crash or a failed start (0: now). */
  retryIn(): number {
    return Math.max(0, this.retryAt - this.now());
  }

  /** The running session, starting the server if needed. Fails at once while a failed server's backoff runs. */
  connect(): Promise<McpConnection> {
    if (this.connection) return Promise.resolve(this.connection);
    if (this.starting) return this.starting;
    if (this.state === "closed") return Promise.reject(this.unavailable("prx is shutting down"));
    if (this.state === "disabled") return Promise.reject(this.unavailable("it is disabled (enabled = false)"));
    const wait = this.retryIn();
    if (wait > 0 && !(this.state === "restarting" && wait <= this.options.config.timeout_ms)) {
      return Promise.reject(this.unavailable(`${this.lastError ?? "it failed"}; prx tries again in ${Math.ceil(wait / 1000)} s`));
    }
    if (wait > 0) return Bun.sleep(wait).then(() => this.connect());
    this.clearRestartTimer();
    const attempt = this.start();
    this.starting = attempt;
    const done = () => void (this.starting === attempt && (this.starting = null));
    attempt.then(done, done);
    return attempt;
  }

  /** Run one tool; a failure (the server down, a timeout, a refused call) throws a PrxError naming the server. */
  call(tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult> {
    this.calls++;
    const running = this.connection;
    // the common case, a running server, without waiting on connect()
    const answer = running ? running.callTool(tool, args, signal) : this.connect().then((c) => c.callTool(tool, args, signal));
    return answer.then(toToolResult, (error: unknown) => {
      this.errors++;
      throw this.explain(tool, error);
    });
  }

  /** The server's tools as it lists them now (starting it if needed; a read already under way is shared). */
  async listTools(): Promise<McpToolInfo[]> {
    await this.connect();
    await (this.listing ?? this.refreshTools());
    return this.tools ?? [];
  }

  async listResources(): Promise<McpResourceInfo[]> {
    return (await this.connect()).listResources();
  }

  async listPrompts(): Promise<McpPromptInfo[]> {
    return (await this.connect()).listPrompts();
  }

  /** Read the tool list again (after list_changed); calls arriving meanwhile are folded into one more read. */
  refreshTools(): Promise<void> {
    if (this.listing) {
      this.listAgain = true;
      return this.listing;
    }
    const run = async (): Promise<void> => {
      do {
        this.listAgain = false;
        const connection = this.connection;
        if (!connection) return;
        const tools = await connection.listTools();
        this.tools = tools;
        this.toolsFrom = "server";
        writeToolCache(this.options.workspace.cacheDir, this.name, this.fingerprint, tools, this.options.logger);
        this.options.onToolsChanged();
      } while (this.listAgain);
    };
    this.listing = run().finally(() => (this.listing = null));
    return this.listing;
  }

  /**
   * The owner's restart (console, API): the running session is closed and a new one started now, the backoff of
   * failed starts forgotten. Resolves once the server is ready; a start that fails rejects as connect() does.
   */
  async restart(): Promise<McpConnection> {
    if (this.state === "closed") throw this.unavailable("prx is shutting down");
    if (this.state === "disabled") throw this.unavailable("it is disabled (enabled = false)");
    this.clearRestartTimer();
    const starting = this.starting;
    // a start that fails now was logged by start(); the restart starts again anyway
    if (starting) await starting.catch((error: unknown) => this.options.logger.debug("start replaced by a restart", { error: errorMessage(error) }));
    const connection = this.connection;
    // unpublished first: its end is not a crash
    this.connection = null;
    this.state = "stopped";
    if (connection) {
      await connection.close();
      this.restarts++;
    }
    this.startBackoff.reset();
    this.retryAt = 0;
    this.options.logger.info(`MCP server "${this.name}" ${connection ? "restarted" : "started"} by its owner`);
    return this.connect();
  }

  async close(): Promise<void> {
    this.state = "closed";
    this.clearRestartTimer();
    this.closing.abort(new PrxError("ABORTED", "prx is shutting down"));
    const starting = this.starting;
    // a start that fails now was logged by start(); only its end matters here
    if (starting) await starting.catch((error: unknown) => this.options.logger.debug("start ended by close", { error: errorMessage(error) }));
    const connection = this.connection;
    this.connection = null;
    if (connection) await connection.close();
  }

  private async start(): Promise<McpConnection> {
    this.state = "starting";
    let connection: McpConnection | undefined;
    try {
      const connect = this.options.connect ?? (await loadConnect());
      connection = await connect({
        name: this.name,
        config: this.options.config,
        workspaceRoot: this.options.workspace.root,
        env: this.options.env,
        clientVersion: this.options.clientVersion,
        logger: this.options.logger,
        onToolsChanged: () => this.onListChanged(),
        // a session that ends during the handshake fails connect(): only a published one can crash
        onClosed: (reason) => connection !== undefined && this.onClosed(connection, reason),
        signal: this.closing.signal,
      });
    } catch (error) {
      if ((this.state as McpServerState) === "closed") throw this.unavailable("prx is shutting down");
      this.retryAt = this.now() + this.startBackoff.next();
      this.lastError = errorMessage(error);
      if (this.state === "starting") this.state = "failed";
      this.options.logger.warn(`MCP server "${this.name}" did not start`, { error: this.lastError });
      throw error;
    }
    // close() may have run while the server was starting
    if ((this.state as McpServerState) === "closed") {
      await connection.close();
      throw this.unavailable("prx is shutting down");
    }
    this.connection = connection;
    this.state = "ready";
    this.startBackoff.reset();
    this.retryAt = 0;
    this.options.logger.info(`MCP server "${this.name}" is ready (${connection.transport}${connection.pid ? `, pid ${connection.pid}` : ""})`);
    void this.refreshTools().catch((error: unknown) =>
      this.options.logger.warn(`MCP server "${this.name}" did not list its tools`, { error: errorMessage(error) }),
    );
    return connection;
  }

  private onListChanged(): void {
    this.options.logger.info(`MCP server "${this.name}" changed its tool list`);
    void this.refreshTools().catch((error: unknown) =>
      this.options.logger.warn(`MCP server "${this.name}" did not list its changed tools`, { error: errorMessage(error) }),
    );
  }

  /** The session ended. Unless prx closed it, this is a crash: restart after the backoff, within the crash budget. */
  private onClosed(connection: McpConnection, reason: string): void {
    if (this.connection !== connection) return;
    this.connection = null;
    if (this.state === "closed") return;
    this.lastError = `it stopped: ${reason}`;
    this.scheduleRestart(`stopped (${reason})`);
  }

  /**
   * After a crash, or a restart that failed: start again after the backoff while the crash budget lasts (each
   * attempt counts), else leave the server down until a call needs it.
   */
  private scheduleRestart(what: string): void {
    const crash = this.crashPolicy.exited();
    this.retryAt = this.now() + crash.delayMs;
    if (!crash.restart) {
      this.state = "failed";
      this.options.logger.error(`MCP server "${this.name}" ${what}: ${crash.exitsInWindow} times within a minute; left down until a call needs it`);
      return;
    }
    this.state = "restarting";
    this.options.logger.warn(`MCP server "${this.name}" ${what}; restarting in ${this.retryIn()} ms`);
    this.clearRestartTimer();
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      this.restarts++;
      this.connect().catch((error: unknown) => {
        if (this.state === "closed") return;
        this.lastError = errorMessage(error);
        this.scheduleRestart("did not restart");
      });
    }, this.retryIn());
    this.restartTimer.unref?.();
  }

  private clearRestartTimer(): void {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
  }

  private unavailable(why: string): PrxError {
    return new PrxError("MCP_UNAVAILABLE", `MCP server "${this.name}" is not available: ${why}`, {
      status: 503,
      hint: `check [mcp.servers.${this.name}] in config.toml; \`prx mcp list\` shows its state and last error`,
    });
  }

  /** A call that found the server gone says why it went and when prx brings it back. */
  private explain(tool: string, error: unknown): unknown {
    if (!isPrxError(error, "MCP_UNAVAILABLE") || error.details?.closed !== true) return error;
    const back = this.state === "restarting" ? `prx restarts it in ${this.retryIn()} ms; call the tool again` : "it is left down until a call needs it";
    return new PrxError("MCP_UNAVAILABLE", `MCP server "${this.name}" stopped during tool "${tool}": ${this.lastError ?? "it went away"}`, {
      cause: error,
      status: 502,
      hint: `${back}; \`prx mcp list\` shows its state`,
    });
  }
}
