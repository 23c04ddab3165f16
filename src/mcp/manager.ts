import type { McpConfig } from "../config/mcp.ts";
import { errorMessage, PrxError } from "../core/errors.ts";
import { createLogger, type Logger } from "../core/logger.ts";
import type { ToolSpec } from "../providers/types.ts";
import type { Tool, ToolSource } from "../tools/types.ts";
import type { Environment } from "./launch.ts";
import { assignToolNames, toolAllowed } from "./names.ts";
import { McpServerHandle, type ServerHandleOptions } from "./server-handle.ts";

export interface McpManagerOptions {
  config: McpConfig;
  workspace: { root: string; cacheDir: string };
  env?: Environment;
  clientVersion?: string;
  logger?: Logger;
  /** Replaces the SDK-backed session opener (tests of the lifecycle). */
  connect?: ServerHandleOptions["connect"];
}

/** A server's tool under the name the model sees. */
export interface NamedMcpTool {
  name: string;
  server: string;
  tool: string;
  description: string;
}

/**
 * The configured MCP servers and their tools as one ToolSource (`mcp__<server>__<tool>`). Listing never starts a
 * server: it offers the tools each one gave last time (cached on disk); a server whose tools were never read is
 * started once in the background to learn them, so a turn never waits for a server it does not call. A call starts
 * its server if needed.
 */
export class McpManager implements ToolSource {
  readonly id = "mcp";
  private readonly servers = new Map<string, McpServerHandle>();
  private readonly logger: Logger;
  private specs: ToolSpec[] = [];
  private tools = new Map<string, Tool>();
  private named: NamedMcpTool[] = [];
  private readonly discovering = new Set<string>();
  private closed = false;

  private config: McpConfig;

  constructor(private readonly options: McpManagerOptions) {
    this.logger = options.logger ?? createLogger("mcp");
    this.config = options.config;
    for (const [name, config] of Object.entries(options.config.servers)) this.servers.set(name, this.open(name, config));
    this.rebuild();
  }

  private open(name: string, config: McpConfig["servers"][string]): McpServerHandle {
    return new McpServerHandle({
      name,
      config,
      workspace: this.options.workspace,
      env: this.options.env ?? process.env,
      clientVersion: this.options.clientVersion ?? "0.0.0",
      logger: this.logger.child(name),
      onToolsChanged: () => this.rebuild(),
      connect: this.options.connect,
    });
  }

  /**
   * A reloaded `[mcp]`: servers added are opened (started as any other: eager ones now, the rest on first use or to
   * learn their tools), removed ones are closed, changed ones closed and opened again with their new settings;
   * unchanged ones keep running. The offered tools follow at once. Returns the names added, removed and changed.
   */
  reconfigure(next: McpConfig): { added: string[]; removed: string[]; changed: string[] } {
    const outcome = { added: [] as string[], removed: [] as string[], changed: [] as string[] };
    if (this.closed) return outcome;
    const before = this.config.servers;
    this.config = next;
    for (const [name, handle] of [...this.servers]) {
      const config = Object.hasOwn(next.servers, name) ? next.servers[name] : undefined;
      if (config && JSON.stringify(config) === JSON.stringify(before[name])) continue;
      this.servers.delete(name);
      this.discovering.delete(name);
      (config ? outcome.changed : outcome.removed).push(name);
      handle.close().catch((error: unknown) => this.logger.warn(`MCP server "${name}" did not close cleanly`, { error: errorMessage(error) }));
    }
    for (const [name, config] of Object.entries(next.servers)) {
      if (this.servers.has(name)) continue;
      if (!outcome.changed.includes(name)) outcome.added.push(name);
      const handle = this.open(name, config);
      this.servers.set(name, handle);
      if (config.eager && handle.state === "stopped") this.background(handle, "did not start");
    }
    // a restarted server offers the same specs through a new handle: the tools are made again whatever the specs
    this.rebuild(true);
    return outcome;
  }

  list(): ToolSpec[] {
    if (!this.closed) for (const handle of this.servers.values()) if (handle.tools === null) this.discover(handle);
    return this.specs;
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  /** Every server, in name order. */
  handles(): McpServerHandle[] {
    return [...this.servers.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The tools the model sees, with the server and tool each name stands for. */
  namedTools(): readonly NamedMcpTool[] {
    return this.named;
  }

  /** One server by name; a NOT_FOUND PrxError listing the configured ones otherwise. */
  handle(name: string): McpServerHandle {
    const handle = this.servers.get(name);
    if (handle) return handle;
    const known = [...this.servers.keys()];
    throw new PrxError("NOT_FOUND", `no MCP server named "${name}"`, {
      status: 404,
      hint: known.length > 0 ? `configured servers: ${known.join(", ")}` : "add one as [mcp.servers.<name>] in config.toml",
    });
  }

  /** Start the servers marked `eager` (the gateway does at start) without waiting for them. */
  startEager(): void {
    for (const handle of this.servers.values()) {
      if (handle.config.eager && handle.state === "stopped") this.background(handle, "did not start");
    }
  }

  /** Start every enabled server and read its tools (`prx mcp list`); failures stay in each server's state. */
  async connectAll(): Promise<void> {
    await Promise.all(
      this.handles()
        .filter((handle) => handle.state !== "disabled")
        .map((handle) =>
          handle.listTools().then(
            () => undefined,
            // the server's state and last error say what happened; the caller shows them
            (error: unknown) => this.logger.debug(`MCP server "${handle.name}" is not available`, { error: errorMessage(error) }),
          ),
        ),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.servers.values()].map((handle) => handle.close()));
  }

  private discover(handle: McpServerHandle): void {
    if (this.discovering.has(handle.name) || handle.state !== "stopped") return;
    this.discovering.add(handle.name);
    this.logger.info(`MCP server "${handle.name}": its tools are not known yet; starting it to read them`);
    this.background(handle, "did not start to list its tools");
  }

  private background(handle: McpServerHandle, what: string): void {
    handle.listTools().catch((error: unknown) =>
      this.logger.warn(`MCP server "${handle.name}" ${what}; its tools are not offered`, { error: errorMessage(error) }),
    );
  }

  /** Recompute the offered tools from every enabled server's known list; a new array only when something changed. */
  private rebuild(force = false): void {
    const entries: Array<{ server: string; tool: string; description: string; inputSchema: Record<string, unknown>; readOnly?: boolean }> = [];
    for (const handle of this.servers.values()) {
      if (handle.state === "disabled") continue;
      const { tools: allow, exclude } = handle.config;
      for (const tool of handle.tools ?? []) {
        if (toolAllowed(tool.name, allow, exclude)) entries.push({ server: handle.name, ...tool, tool: tool.name });
      }
    }
    const byKey = new Map(entries.map((e) => [`${e.server}\u0000${e.tool}`, e]));
    const names = assignToolNames(entries);
    const specs: ToolSpec[] = [];
    const tools = new Map<string, Tool>();
    const named: NamedMcpTool[] = [];
    for (const [name, { server, tool }] of [...names].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const entry = byKey.get(`${server}\u0000${tool}`)!;
      const spec: ToolSpec = { name, description: entry.description, parameters: entry.inputSchema };
      const handle = this.servers.get(server)!;
      specs.push(spec);
      named.push({ name, server, tool, description: entry.description });
      const risk = entry.readOnly ? { risk: "read" as const } : {};
      tools.set(name, { spec, ...risk, execute: (args, context) => handle.call(tool, args, context.signal) });
    }
    if (JSON.stringify(specs) === JSON.stringify(this.specs)) {
      if (force) this.tools = tools;
      return;
    }
    this.specs = specs;
    this.tools = tools;
    this.named = named;
  }
}
