import {
  MAX_WEBSOCKET_BUFFERED_MESSAGES,
  MAX_WEBSOCKET_MESSAGE_BYTES,
  MAX_WEBSOCKET_RECEIVE_WAIT_MS,
  MAX_WEBSOCKETS_PER_PLUGIN,
} from "../limits.ts";
import type { HostContext } from "./context.ts";
import { HostError } from "./errors.ts";
import type { Connection } from "./socket-table.ts";
import { HTTP_PERMISSION, checkOutbound } from "./http-outbound.ts";

/** prx:host/websocket — outbound text WebSockets, gated like http (grant "websocket" or "http-outbound" + allowlist). */
export const WEBSOCKET_PERMISSION = "websocket";

/** Open a WebSocket and wait for it to open; a failed connect is closed and reported. */
async function open(url: URL, headers: [string, string][]): Promise<Connection> {
  const socket = new WebSocket(url.href, { headers: Object.fromEntries(headers) } as unknown as string[]);
  const conn: Connection = { socket, inbox: [], waiter: null, closed: null };
  const wake = () => {
    const w = conn.waiter;
    conn.waiter = null;
    w?.();
  };
  socket.addEventListener("message", (ev) => {
    const text = typeof ev.data === "string" ? ev.data : new TextDecoder().decode(ev.data as ArrayBuffer);
    if (text.length > MAX_WEBSOCKET_MESSAGE_BYTES) return;
    if (conn.inbox.length >= MAX_WEBSOCKET_BUFFERED_MESSAGES) conn.inbox.shift();
    conn.inbox.push(text);
    wake();
  });
  socket.addEventListener("close", () => {
    conn.closed ??= "closed by peer";
    wake();
  });
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener("open", () => resolve(), { once: true });
    const failed = () => {
      socket.close();
      reject(new HostError(`websocket connect to ${url.href} failed`));
    };
    socket.addEventListener("error", failed, { once: true });
  });
  return conn;
}

export function websocketImports(ctx: HostContext) {
  return {
    connect: async (rawUrl: string, headers: [string, string][]): Promise<bigint> => {
      const url = checkOutbound(ctx, rawUrl, ["ws:", "wss:"], [WEBSOCKET_PERMISSION, HTTP_PERMISSION]);
      if (ctx.sockets.open.size + ctx.sockets.connecting >= MAX_WEBSOCKETS_PER_PLUGIN) {
        throw new HostError(`plugin ${ctx.plugin.name} already has ${MAX_WEBSOCKETS_PER_PLUGIN} open websockets`);
      }
      ctx.sockets.connecting++;
      try {
        return BigInt(ctx.sockets.add(await open(url, headers)));
      } finally {
        ctx.sockets.connecting--;
      }
    },
    send: async (id: bigint, message: string): Promise<void> => {
      const conn = ctx.sockets.get(id);
      if (conn.closed) throw new HostError(`websocket ${id} is closed: ${conn.closed}`);
      if (Buffer.byteLength(message) > MAX_WEBSOCKET_MESSAGE_BYTES)
        throw new HostError(`websocket message exceeds ${MAX_WEBSOCKET_MESSAGE_BYTES} bytes`);
      conn.socket.send(message);
    },
    receive: async (id: bigint, timeoutMs: number): Promise<string | undefined> => {
      const conn = ctx.sockets.get(id);
      if (conn.inbox.length === 0 && !conn.closed) {
        const wait = Math.min(timeoutMs, MAX_WEBSOCKET_RECEIVE_WAIT_MS);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
          conn.waiter = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      const next = conn.inbox.shift();
      if (next === undefined && conn.closed) throw new HostError(`websocket ${id} is closed: ${conn.closed}`);
      return next;
    },
    close: async (id: bigint): Promise<void> => {
      const conn = ctx.sockets.get(id);
      conn.closed ??= "closed by plugin";
      conn.socket.close();
      ctx.sockets.open.delete(Number(id));
    },
  };
}
