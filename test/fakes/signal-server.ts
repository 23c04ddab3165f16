/**
 * A fake signal-cli HTTP daemon on 127.0.0.1 (`signal-cli -a ACCOUNT daemon --http`), answering as its manual
 * documents (https://github.com/AsamK/signal-cli/blob/master/man/signal-cli-jsonrpc.5.adoc):
 * - POST /api/v1/rpc: JSON-RPC 2.0; `send` with `recipient` (array) or `groupId` and `message` answers
 *   `{result: {timestamp}}`, its `attachments` paths or data URIs `data:<MIME>;filename=<NAME>;base64,<DATA>`
 *   (https://github.com/AsamK/signal-cli/blob/master/man/signal-cli.1.adoc, send -a); `sendTyping`; `getAttachment` {id} answers the file as base64; an unknown method is
 *   error -32601, a request without a method -32600.
 * - GET /api/v1/events: Server-Sent Events, one `receive` event per message whose data is the receive
 *   notification's params `{envelope, account}`; every event has an id, the last 1000 are kept, and a client
 *   reconnecting with Last-Event-ID first gets the events after it (all kept ones when the id is unknown).
 * - GET /api/v1/check: 200 while running.
 * - `version` answers `{version}`; `listAccounts` (a multi-account daemon, `signal-cli daemon --http`) answers the
 *   local accounts as `[{number, aci}]` (the manual's "Multi-account mode"); a single-account daemon (`-a ACCOUNT`,
 *   `singleAccount`) does not implement that multi-account command: error -32601.
 * Envelopes are shaped as the manual's receive example (source, sourceNumber, sourceUuid, sourceName,
 * sourceDevice, timestamp, dataMessage {timestamp, message, attachments, mentions, groupInfo}).
 */
import { waitFor } from "../helpers/wait.ts";

export interface SignalSend {
  recipient?: string[];
  groupId?: string;
  message: string;
  timestamp: number;
  /** Data-URI attachments, decoded. */
  attachments?: Array<{ mime: string; filename: string; bytes: Uint8Array }>;
}

export interface FakeSignal {
  url: string;
  account: string;
  sends: SignalSend[];
  typing: number;
  /** SSE connections opened so far, and the Last-Event-ID each carried. */
  connections: Array<string | null>;
  /** Queue a receive event; returns the envelope. */
  message(m: { source: string; name?: string; text: string; timestamp?: number; groupId?: string; mentionMe?: boolean; attachments?: unknown[] }): Record<string, unknown>;
  /** Keep an attachment for getAttachment; returns its id. */
  attachment(bytes: Uint8Array): string;
  /** End every open event stream (a dropped connection). */
  drop(): void;
  waitForSends(n: number, timeoutMs?: number): Promise<SignalSend[]>;
  stop(): Promise<void>;
}

const MAX_KEPT = 1000;

export function startFakeSignal(account = "+15550009999", options: { singleAccount?: boolean } = {}): FakeSignal {
  const sends: SignalSend[] = [];
  const events: Array<{ id: number; data: string }> = [];
  const streams = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const files = new Map<string, Uint8Array>();
  const encoder = new TextEncoder();
  let nextEvent = 0;
  let clock = 1_700_000_000_000;
  const frame = (e: { id: number; data: string }) => encoder.encode(`event: receive\nid: ${e.id}\ndata: ${e.data}\n\n`);

  const fake: FakeSignal = {
    url: "",
    account,
    sends,
    typing: 0,
    connections: [],
    message(m) {
      const timestamp = m.timestamp ?? ++clock;
      const dataMessage: Record<string, unknown> = { timestamp, message: m.text, expiresInSeconds: 0, viewOnce: false, mentions: [], attachments: m.attachments ?? [], contacts: [] };
      if (m.mentionMe) dataMessage.mentions = [{ name: account, number: account, uuid: "uuid-me", start: 0, length: 1 }];
      if (m.groupId) dataMessage.groupInfo = { groupId: m.groupId, type: "DELIVER" };
      const envelope = { source: m.source, sourceNumber: m.source, sourceUuid: `uuid-${m.source}`, sourceName: m.name ?? "Someone", sourceDevice: 1, timestamp, dataMessage };
      const event = { id: ++nextEvent, data: JSON.stringify({ envelope, account }) };
      events.push(event);
      if (events.length > MAX_KEPT) events.shift();
      for (const stream of streams) stream.enqueue(frame(event));
      return envelope;
    },
    attachment(bytes) {
      const id = `att${files.size + 1}.png`;
      files.set(id, bytes);
      return id;
    },
    drop() {
      for (const stream of streams) stream.close();
      streams.clear();
    },
    async waitForSends(n, timeoutMs) {
      await waitFor(() => sends.length >= n, () => `${n} Signal sends, got ${JSON.stringify(sends)}`, timeoutMs);
      return sends.slice(0, n);
    },
    stop: async () => {
      fake.drop();
      await server.stop(true);
    },
  };

  const rpcError = (id: unknown, code: number, message: string) => Response.json({ jsonrpc: "2.0", error: { code, message, data: null }, id: id ?? null });

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (url.pathname === "/api/v1/check") return new Response("", { status: 200 });
      if (url.pathname === "/api/v1/events" && request.method === "GET") {
        const last = request.headers.get("last-event-id");
        fake.connections.push(last);
        const known = last !== null && events.some((e) => String(e.id) === last);
        const backlog = known ? events.filter((e) => e.id > Number(last)) : last === null ? [] : events;
        let mine: ReadableStreamDefaultController<Uint8Array>;
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            mine = controller;
            streams.add(controller);
            // an SSE comment: the response head goes out at once (a stream with no bytes yet would hold it back)
            controller.enqueue(encoder.encode(": connected\n\n"));
            for (const e of backlog) controller.enqueue(frame(e));
          },
          cancel() {
            streams.delete(mine);
          },
        });
        return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
      }
      if (url.pathname !== "/api/v1/rpc" || request.method !== "POST") return new Response("not found", { status: 404 });
      const call = (await request.json().catch(() => null)) as { jsonrpc?: string; method?: string; params?: Record<string, any>; id?: unknown } | null;
      if (!call || call.jsonrpc !== "2.0") return rpcError(null, -32700, "parse error");
      if (!call.method) return rpcError(call.id, -32600, "method field must be set");
      const params = call.params ?? {};
      switch (call.method) {
        case "send": {
          if (!params.recipient && !params.groupId) return rpcError(call.id, -32602, "no recipients given");
          const attachments: NonNullable<SignalSend["attachments"]> = [];
          for (const a of [params.attachments ?? []].flat() as string[]) {
            const m = /^data:([^;,]+);filename=([^;,]+);base64,(.*)$/s.exec(a);
            if (!m) return rpcError(call.id, -1, `attachment ${a.slice(0, 40)} not found`);
            attachments.push({ mime: m[1]!, filename: m[2]!, bytes: new Uint8Array(Buffer.from(m[3]!, "base64")) });
          }
          if (!params.message && attachments.length === 0) return rpcError(call.id, -32602, "no message or attachment given");
          const timestamp = ++clock;
          sends.push({ ...(params.recipient ? { recipient: [params.recipient].flat() } : { groupId: params.groupId }), message: String(params.message ?? ""), timestamp, ...(attachments.length ? { attachments } : {}) });
          return Response.json({ jsonrpc: "2.0", result: { timestamp, results: [{ type: "SUCCESS" }] }, id: call.id });
        }
        case "version":
          return Response.json({ jsonrpc: "2.0", result: { version: "0.13.22" }, id: call.id });
        case "listAccounts":
          if (options.singleAccount) return rpcError(call.id, -32601, "Method not implemented");
          return Response.json({ jsonrpc: "2.0", result: [{ number: account, aci: "11111111-1111-4111-8111-111111111111" }], id: call.id });
        case "sendTyping":
          fake.typing += 1;
          return Response.json({ jsonrpc: "2.0", result: {}, id: call.id });
        case "getAttachment": {
          const file = files.get(String(params.id));
          if (!file) return rpcError(call.id, -1, "attachment not found");
          return Response.json({ jsonrpc: "2.0", result: { data: Buffer.from(file).toString("base64") }, id: call.id });
        }
        default:
          return rpcError(call.id, -32601, `method not implemented: ${call.method}`);
      }
    },
  });
  fake.url = `http://127.0.0.1:${server.port}`;
  return fake;
}
