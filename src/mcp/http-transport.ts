import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage, PrxError } from "../core/errors.ts";
import { boundedFetch } from "./bounded-fetch.ts";
import { serverHeaders } from "./launch.ts";
import type { ConnectOptions } from "./types.ts";

/** Statuses with which a server answers a Streamable HTTP initialize it does not speak: try the 2024-11-05 SSE transport. */
const SSE_FALLBACK_STATUSES = new Set([400, 404, 405]);

/** Transport errors that mean the server cannot be reached (as the SDK and Bun's fetch word them). */
const NETWORK_FAILURE = /SSE stream disconnected|Failed to reconnect|Maximum reconnection attempts|ECONNREFUSED|ECONNRESET|socket|fetch failed|Unable to connect/i;

export interface HttpConnection {
  client: Client;
  transport: Transport;
  kind: "streamable-http" | "sse";
  /** End the session (a Streamable HTTP session is deleted on the server) and the connection. */
  close(): Promise<void>;
}

/**
 * Connect to a url server: Streamable HTTP first; when the server answers the initialize POST with 400, 404 or 405
 * (as servers of the older HTTP+SSE transport do), the SSE transport at the same URL, as the MCP specification's
 * backwards-compatibility section describes.
 */
export async function connectHttp(
  options: ConnectOptions,
  newClient: () => Client,
  onClosed: (reason: string) => void,
): Promise<HttpConnection> {
  const { name, config } = options;
  const url = new URL(config.url!);
  const requestInit: RequestInit = { headers: serverHeaders(name, config, options.env) };
  const fetch = boundedFetch(name);
  const attempt = async (kind: HttpConnection["kind"]): Promise<HttpConnection> => {
    const client = newClient();
    const transport = kind === "sse" ? new SSEClientTransport(url, { requestInit, fetch }) : new StreamableHTTPClientTransport(url, { requestInit, fetch });
    let connected = false;
    let broken: string | null = null;
    client.onclose = () => onClosed(broken ?? `the ${kind} connection to ${url.origin} closed`);
    // The SDK reports a lost server only here (a response stream that ends without its answer leaves the request
    // waiting for its timeout): a network failure gives the connection up, which fails the calls in flight at once
    // and lets prx reconnect with backoff.
    transport.onerror = (error) => {
      options.logger.debug(`MCP server "${name}": ${error.message}`);
      if (!connected || broken !== null || !NETWORK_FAILURE.test(error.message)) return;
      broken = `the HTTP connection failed: ${error.message}`;
      void client.close();
    };
    try {
      await client.connect(transport, { timeout: config.startup_timeout_ms, signal: options.signal });
    } catch (error) {
      client.onclose = undefined;
      await transport.close().catch((closeError: unknown) =>
        options.logger.debug(`closing a failed connection to MCP server "${name}"`, { error: errorMessage(closeError) }),
      );
      throw error;
    }
    connected = true;
    const close = async () => {
      if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
        await transport.terminateSession().catch((error: unknown) =>
          options.logger.debug(`MCP server "${name}" did not end its session`, { error: errorMessage(error) }),
        );
      }
      await client.close();
    };
    return { client, transport, kind, close };
  };
  try {
    return await attempt("streamable-http");
  } catch (error) {
    if (!(error instanceof StreamableHTTPError && SSE_FALLBACK_STATUSES.has(error.code ?? 0))) throw unreachable(options, error);
    options.logger.info(`MCP server "${name}" answered Streamable HTTP with ${error.code}; trying the SSE transport`);
    try {
      return await attempt("sse");
    } catch (sseError) {
      throw unreachable(options, sseError, `Streamable HTTP answered ${error.code}, and SSE failed too`);
    }
  }
}

function unreachable(options: ConnectOptions, error: unknown, context?: string): PrxError {
  if (error instanceof PrxError) return error;
  const { name, config } = options;
  const timedOut = error instanceof McpError && error.code === ErrorCode.RequestTimeout;
  const why = timedOut ? `no MCP handshake within ${config.startup_timeout_ms} ms` : errorMessage(error);
  return new PrxError(timedOut ? "MCP_TIMEOUT" : "MCP_UNAVAILABLE", `MCP server "${name}" at ${config.url} is not reachable: ${context ? `${context}: ` : ""}${why}`, {
    cause: error,
    status: 502,
    hint: `check [mcp.servers.${name}] url and headers_from_env in config.toml, and that the server is running`,
  });
}
