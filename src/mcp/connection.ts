import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { McpServerConfig } from "../config/mcp.ts";
import { errorMessage, isPrxError, PrxError } from "../core/errors.ts";
import { CallSignal } from "./call-signal.ts";
import { isPlainTextResult } from "./fast-accept.ts";
import { connectHttp } from "./http-transport.ts";
import { resolveCommand, serverCwd, serverEnvironment } from "./launch.ts";
import { MCP_KILL_GRACE_MS, MCP_MAX_TOOLS_PER_SERVER } from "./limits.ts";
import { StdioClientTransport } from "./stdio-transport.ts";
import { readPages, readToolEntries, type Page } from "./tool-list.ts";
import type { ConnectOptions, McpConnection } from "./types.ts";
import { CallToolResultSchema, PromptsPageSchema, ResourcesPageSchema, ToolsPageSchema } from "./wire.ts";
import { readPrompts, readResources } from "./catalog.ts";

/** Results are read with prx's own schemas (CallToolResultSchema), so the SDK checks nothing more than JSON-RPC. */
const AnyResult = z.unknown();

/** The SDK Client never validates tool output here (prx reads results with its own schemas): no Ajv at run time. */
const noValidator: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input: unknown) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

function newClient(version: string): Client {
  return new Client({ name: "prx", version }, { capabilities: {}, jsonSchemaValidator: noValidator });
}

/** Start (stdio) or reach (url) the server and complete the MCP handshake within startup_timeout_ms. */
export async function connectServer(options: ConnectOptions): Promise<McpConnection> {
  const { name, config, logger } = options;
  let client: Client;
  let kind: McpConnection["transport"];
  let closeSession: () => Promise<void>;
  let stdio: StdioClientTransport | null = null;
  let closing = false;
  /** Why an HTTP connection was given up (a failed request), for the reason its close reports. */
  let failure: string | null = null;
  const closed = (reason: string) => options.onClosed(failure ?? reason);
  if (config.command !== undefined) {
    const cwd = serverCwd(config, options.workspaceRoot);
    const env = serverEnvironment(name, config, options.env);
    const command = resolveCommand(name, config.command, cwd, env.PATH);
    stdio = new StdioClientTransport({ server: name, command, args: config.args ?? [], env, cwd, logger });
    client = newClient(options.clientVersion);
    kind = "stdio";
    const transport = stdio;
    closeSession = async () => {
      await client.close();
      await transport.close();
    };
    client.onclose = () => closed(closing ? "prx closed it" : (stdio!.exitReason ?? "its process exited"));
    const stop = () => void stdio!.close();
    options.signal?.addEventListener("abort", stop, { once: true });
    try {
      await client.connect(stdio, { timeout: config.startup_timeout_ms, signal: options.signal });
    } catch (error) {
      // a server that died during the handshake (a write then fails with EPIPE, or the pipe closed) is reported by
      // its exit and its stderr, once its end has been seen
      const died = isPrxError(error, "MCP_UNAVAILABLE") || (error instanceof McpError && error.code === ErrorCode.ConnectionClosed);
      const exitReason = died && (await stdio.endedWithin(MCP_KILL_GRACE_MS)) ? stdio.exitReason : null;
      await stdio.close();
      throw startFailure(name, config, error, exitReason, stdio.stderrTail());
    } finally {
      options.signal?.removeEventListener("abort", stop);
    }
  } else {
    const http = await connectHttp(options, () => newClient(options.clientVersion), (reason) => closed(closing ? "prx closed it" : reason));
    client = http.client;
    kind = http.kind;
    closeSession = http.close;
  }
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => options.onToolsChanged());
  const capabilities = client.getServerCapabilities() ?? {};
  const pages = (method: string, schema: z.ZodType<{ nextCursor?: string }>, key: string) =>
    (cursor: string | undefined): Promise<Page> =>
      client
        .request({ method, params: cursor === undefined ? {} : { cursor } } as never, schema, { timeout: config.timeout_ms })
        .then((page) => ({ items: (page as Record<string, unknown[]>)[key] ?? [], nextCursor: page.nextCursor }));

  return {
    transport: kind,
    pid: stdio?.pid ?? null,
    async listTools() {
      if (!capabilities.tools) return [];
      const read = await readPages(pages("tools/list", ToolsPageSchema, "tools"), MCP_MAX_TOOLS_PER_SERVER + 1);
      if (read.truncated) logger.warn(`MCP server "${name}" lists more tools than prx reads; the rest are left out`);
      return readToolEntries(name, read.items, logger);
    },
    async listResources() {
      if (!capabilities.resources) return [];
      return readResources(name, await readPages(pages("resources/list", ResourcesPageSchema, "resources"), MCP_MAX_TOOLS_PER_SERVER), logger);
    },
    async listPrompts() {
      if (!capabilities.prompts) return [];
      return readPrompts(name, await readPages(pages("prompts/list", PromptsPageSchema, "prompts"), MCP_MAX_TOOLS_PER_SERVER), logger);
    },
    async callTool(tool, args, signal) {
      // the SDK never removes the listener it adds to a request's signal: it gets one that lives for this call only
      const call = signal ? new CallSignal(signal) : undefined;
      let raw: unknown;
      try {
        raw = await client.request(
          { method: "tools/call", params: { name: tool, arguments: args } },
          AnyResult,
          { timeout: config.timeout_ms, signal: call?.signal },
        );
      } catch (error) {
        if (kind !== "stdio" && !(error instanceof McpError) && !closing && !call?.aborted) {
          // the request itself failed (connection refused or reset, session gone): the server is treated as
          // crashed, so prx reconnects after the backoff instead of reusing a dead session
          failure = `the HTTP connection failed: ${errorMessage(error)}`;
          await client.close();
          throw new PrxError("MCP_UNAVAILABLE", `MCP server "${name}" went away during tool "${tool}"`, {
            cause: error,
            status: 502,
            details: { closed: true },
          });
        }
        throw callFailure(name, tool, config, error);
      } finally {
        call?.done();
      }
      if (isPlainTextResult(raw)) return raw;
      const parsed = CallToolResultSchema.safeParse(raw);
      if (parsed.success) return parsed.data;
      throw new PrxError("MCP_PROTOCOL", `MCP server "${name}" answered tool "${tool}" with a malformed result: ${parsed.error.issues[0]?.message}`, {
        status: 502,
        hint: "report it to the server's authors",
      });
    },
    garbageLines: () => stdio?.garbageLines ?? 0,
    stderrTail: () => stdio?.stderrTail() ?? [],
    async close() {
      closing = true;
      await closeSession();
    },
  };
}

function startFailure(name: string, config: McpServerConfig, error: unknown, exitReason: string | null, tail: string[]): PrxError {
  if (error instanceof PrxError && (error.code !== "MCP_UNAVAILABLE" || exitReason === null)) return error;
  const timedOut = error instanceof McpError && error.code === ErrorCode.RequestTimeout;
  const why = timedOut
    ? `it did not complete the MCP handshake within ${config.startup_timeout_ms} ms`
    : (exitReason ?? errorMessage(error));
  const stderr = tail.length > 0 ? `; its last stderr lines: ${tail.join(" | ")}` : "";
  return new PrxError(timedOut ? "MCP_TIMEOUT" : "MCP_UNAVAILABLE", `MCP server "${name}" did not start: ${why}${stderr}`, {
    cause: error,
    status: 502,
    hint: timedOut
      ? `raise [mcp.servers.${name}] startup_timeout_ms, or check that the command speaks MCP on stdio`
      : `check [mcp.servers.${name}] in config.toml (command, args, env_from), then try \`prx mcp tools ${name}\``,
  });
}

/** A failed tools/call as a PrxError naming the server, the tool and what to do. */
export function callFailure(name: string, tool: string, config: McpServerConfig, error: unknown): PrxError {
  if (error instanceof PrxError) return error;
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return new PrxError("MCP_TIMEOUT", `MCP server "${name}" did not answer tool "${tool}" within ${config.timeout_ms} ms`, {
      cause: error,
      status: 504,
      hint: `raise [mcp.servers.${name}] timeout_ms in config.toml, or ask the tool for less work per call`,
    });
  }
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
    return new PrxError("MCP_UNAVAILABLE", `MCP server "${name}" went away during tool "${tool}"`, {
      cause: error,
      status: 502,
      details: { closed: true },
    });
  }
  return new PrxError("MCP_PROTOCOL", `MCP server "${name}" refused tool "${tool}": ${errorMessage(error)}`, {
    cause: error,
    status: 502,
    hint: `see \`prx mcp tools ${name}\` for the tool's arguments`,
  });
}
