/** HTTP/1.1 written by hand over node:net: a Host header or a pace no fetch client sends, from a chosen loopback address. */
import { connect, type Socket } from "node:net";

export interface RawResponse {
  status: number;
  /** Lower-cased names. */
  headers: Record<string, string>;
  body: string;
}

export interface RawConnection {
  socket: Socket;
  /** The first response, once whole (Content-Length framed); null when the connection closed before it. */
  response: Promise<RawResponse | null>;
  /** Resolves when the connection has closed (either side). */
  closed: Promise<void>;
  isClosed(): boolean;
  write(text: string): void;
  /** Close it (idempotent). */
  close(): void;
}

/** Open a connection to `url` (http://host:port) from `localAddress` (default the system's) and write `head` at once. */
export function rawConnection(url: string, head: string, localAddress?: string): RawConnection {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port), ...(localAddress ? { localAddress } : {}) });
  let buffer = Buffer.alloc(0);
  let done = false;
  let settle!: (response: RawResponse | null) => void;
  const response = new Promise<RawResponse | null>((resolve) => (settle = resolve));
  const closed = new Promise<void>((resolve) =>
    socket.on("close", () => {
      done = true;
      settle(null);
      resolve();
    }),
  );
  // a reset by the server is a close like any other here
  socket.on("error", () => socket.destroy());
  socket.on("data", (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    const parsed = parseResponse(buffer);
    if (parsed) settle(parsed);
  });
  socket.write(head);
  return {
    socket,
    response,
    closed,
    isClosed: () => done,
    write: (text) => void (done || socket.write(text)),
    close: () => void socket.destroy(),
  };
}

function parseResponse(buffer: Buffer): RawResponse | null {
  const end = buffer.indexOf("\r\n\r\n");
  if (end < 0) return null;
  const [statusLine = "", ...lines] = buffer.subarray(0, end).toString("latin1").split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers["content-length"] ?? 0);
  if (buffer.length < end + 4 + length) return null;
  const body = buffer.subarray(end + 4, end + 4 + length).toString("utf8");
  return { status: Number(statusLine.split(" ")[1]), headers, body };
}

/** A request head (and optional start of a body) with CRLF line ends. */
export function requestHead(method: string, path: string, headers: Record<string, string | number>, body = ""): string {
  const lines = [`${method} ${path} HTTP/1.1`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  return `${lines.join("\r\n")}\r\n\r\n${body}`;
}
