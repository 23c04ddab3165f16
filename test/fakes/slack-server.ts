/**
 * A fake Slack on 127.0.0.1: the Web API (https://api.slack.com/web: `POST /api/<method>` with a bearer token,
 * `{ok, ...}` / `{ok: false, error}`, HTTP 429 with Retry-After) for auth.test, apps.connections.open and
 * chat.postMessage, and the Socket Mode WebSocket (https://api.slack.com/apis/socket-mode): `hello` on connect,
 * `events_api` envelopes the app must acknowledge with `{envelope_id}`, `disconnect` frames. An envelope not
 * acknowledged before its socket closes is redelivered on the next connection, as Slack does. Files go up as
 * https://api.slack.com/messaging/files#uploading_files says: files.getUploadURLExternal (form-encoded `filename`,
 * `length`) answers `upload_url` and `file_id`, the bytes are POSTed there (multipart `file`; "OK - <length>"), and
 * files.completeUploadExternal (form-encoded `files` JSON, `channel_id`, `thread_ts`) shares them.
 */
import type { ServerWebSocket } from "bun";

export interface SlackPost {
  channel: string;
  text: string;
  thread_ts?: string;
  ts: string;
}

export interface SlackShare {
  file_id: string;
  title: string;
  channel_id: string;
  thread_ts?: string;
  name: string;
  bytes: Uint8Array;
}

export interface FakeSlack {
  /** Web API root, as api_base_url (ends with /api). */
  url: string;
  botToken: string;
  appToken: string;
  botUserId: string;
  posts: SlackPost[];
  /** Files shared by files.completeUploadExternal. */
  shares: SlackShare[];
  acks: string[];
  connections: number;
  /** Send a message event through Socket Mode; returns the envelope id. */
  message(event: { channel: string; user: string; text: string; ts?: string; channel_type?: string; thread_ts?: string; bot_id?: string; subtype?: string; type?: string; files?: unknown[] }): string;
  /** Keep a file served at its url_private (only with the bot token, as Slack does); returns the file object. */
  file(bytes: Uint8Array, name: string, mimetype: string): Record<string, unknown>;
  /** Ask the app to reconnect (`disconnect` with reason refresh_requested). */
  disconnect(reason?: string): void;
  /** Close the socket without a word (a dropped connection). */
  drop(): void;
  fail(method: string, ...failures: Array<{ status: number; retryAfter?: number; error?: string }>): void;
  waitForPosts(n: number, timeoutMs?: number): Promise<SlackPost[]>;
  stop(): Promise<void>;
}

export function startFakeSlack(): FakeSlack {
  const botToken = "xoxb-test-token";
  const appToken = "xapp-test-token";
  const botUserId = "UBOT0001";
  const posts: SlackPost[] = [];
  const acks: string[] = [];
  const unacked = new Map<string, string>();
  const failures = new Map<string, Array<{ status: number; retryAfter?: number; error?: string }>>();
  const sockets = new Set<ServerWebSocket<unknown>>();
  const postWaiters = new Set<() => void>();
  let envelope = 0;
  let ts = 1_700_000_000;
  let connections = 0;

  const files = new Map<string, Uint8Array>();
  const shares: SlackShare[] = [];
  /** Upload URLs handed out: the file's declared name and length, and its bytes once POSTed. */
  const uploads = new Map<string, { name: string; length: number; bytes?: Uint8Array }>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request, srv) {
      const url = new URL(request.url);
      const stored = files.get(url.pathname);
      if (stored) {
        if (request.headers.get("authorization") !== `Bearer ${botToken}`) return new Response("<html>sign in</html>", { status: 302, headers: { location: "/signin" } });
        return new Response(stored);
      }
      const upload = /^\/upload\/(F\w+)$/.exec(url.pathname);
      if (upload && request.method === "POST") {
        const pending = uploads.get(upload[1]!);
        const file = (await request.formData().catch(() => null))?.get("file");
        if (!pending || !file || typeof file === "string") return new Response("bad upload", { status: 400 });
        pending.bytes = new Uint8Array(await file.arrayBuffer());
        if (pending.bytes.byteLength !== pending.length) return new Response("length mismatch", { status: 400 });
        return new Response(`OK - ${pending.length}`);
      }
      if (url.pathname === "/socket") return srv.upgrade(request) ? undefined : new Response("upgrade failed", { status: 400 });
      const method = /^\/api\/([\w.]+)$/.exec(url.pathname)?.[1];
      if (!method) return new Response("not found", { status: 404 });
      const failure = failures.get(method)?.shift();
      if (failure?.status === 429) return new Response("", { status: 429, headers: { "retry-after": String(failure.retryAfter ?? 1) } });
      if (failure) return failure.error ? Response.json({ ok: false, error: failure.error }) : new Response("", { status: failure.status });
      const auth = request.headers.get("authorization");
      const form = (request.headers.get("content-type") ?? "").startsWith("application/x-www-form-urlencoded");
      const body = (form ? Object.fromEntries(new URLSearchParams(await request.text())) : await request.json().catch(() => ({}))) as Record<string, string>;
      const want = method === "apps.connections.open" ? appToken : botToken;
      if (auth !== `Bearer ${want}`) return Response.json({ ok: false, error: "invalid_auth" });
      switch (method) {
        case "auth.test":
          return Response.json({ ok: true, url: "https://fake.slack.com/", team: "T", user: "prx", team_id: "T1", user_id: botUserId, bot_id: "BBOT0001" });
        case "apps.connections.open":
          return Response.json({ ok: true, url: `ws://127.0.0.1:${srv.port}/socket` });
        case "chat.postMessage": {
          if (!body.channel) return Response.json({ ok: false, error: "channel_not_found" });
          if (!body.text) return Response.json({ ok: false, error: "no_text" });
          const post = { channel: body.channel, text: body.text, thread_ts: body.thread_ts, ts: `${++ts}.000100` };
          posts.push(post);
          for (const w of postWaiters) w();
          return Response.json({ ok: true, channel: post.channel, ts: post.ts, message: { text: post.text } });
        }
        case "files.getUploadURLExternal": {
          if (!form) return Response.json({ ok: false, error: "invalid_form_data" });
          if (!body.filename || !(Number(body.length) > 0)) return Response.json({ ok: false, error: "invalid_arguments" });
          const file_id = `F${String(uploads.size + 1).padStart(8, "0")}`;
          uploads.set(file_id, { name: body.filename, length: Number(body.length) });
          return Response.json({ ok: true, upload_url: `http://127.0.0.1:${srv.port}/upload/${file_id}`, file_id });
        }
        case "files.completeUploadExternal": {
          if (!form) return Response.json({ ok: false, error: "invalid_form_data" });
          const listed = JSON.parse(body.files ?? "[]") as Array<{ id: string; title?: string }>;
          const done = listed.map((f) => ({ f, pending: uploads.get(f.id) }));
          if (done.length === 0 || done.some((d) => !d.pending?.bytes)) return Response.json({ ok: false, error: "file_not_found" });
          for (const { f, pending } of done) {
            shares.push({ file_id: f.id, title: f.title ?? pending!.name, channel_id: body.channel_id!, thread_ts: body.thread_ts, name: pending!.name, bytes: pending!.bytes! });
          }
          for (const w of postWaiters) w();
          return Response.json({ ok: true, files: done.map(({ f, pending }) => ({ id: f.id, title: f.title ?? pending!.name })) });
        }
        default:
          return Response.json({ ok: false, error: "unknown_method" });
      }
    },
    websocket: {
      open(ws) {
        connections += 1;
        sockets.add(ws);
        ws.send(JSON.stringify({ type: "hello", num_connections: sockets.size, connection_info: { app_id: "A1" }, debug_info: { host: "fake" } }));
        for (const frame of unacked.values()) ws.send(frame);
      },
      message(_ws, data) {
        const parsed = JSON.parse(String(data)) as { envelope_id?: string };
        if (parsed.envelope_id) {
          acks.push(parsed.envelope_id);
          unacked.delete(parsed.envelope_id);
        }
      },
      close(ws) {
        sockets.delete(ws);
      },
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}/api`,
    botToken,
    appToken,
    botUserId,
    posts,
    shares,
    acks,
    get connections() {
      return connections;
    },
    file(bytes, name, mimetype) {
      const id = `F${files.size + 1}`;
      const path = `/files-pri/T1-${id}/download/${name}`;
      files.set(path, bytes);
      const url = `http://127.0.0.1:${server.port}${path}`;
      return { id, name, mimetype, filetype: name.split(".").pop(), size: bytes.length, url_private: url, url_private_download: url };
    },
    message(event) {
      const id = `env-${++envelope}`;
      const frame = JSON.stringify({
        envelope_id: id,
        type: "events_api",
        accepts_response_payload: false,
        retry_attempt: 0,
        payload: {
          token: "verification-token",
          team_id: "T1",
          api_app_id: "A1",
          type: "event_callback",
          event_id: `Ev${envelope}`,
          event_time: Math.floor(Date.now() / 1000),
          event: { type: event.type ?? "message", channel_type: event.channel_type ?? "im", ts: event.ts ?? `${++ts}.000200`, ...event },
        },
      });
      unacked.set(id, frame);
      for (const ws of sockets) ws.send(frame);
      return id;
    },
    disconnect(reason = "refresh_requested") {
      for (const ws of sockets) ws.send(JSON.stringify({ type: "disconnect", reason, debug_info: { host: "fake" } }));
    },
    drop() {
      for (const ws of sockets) ws.terminate();
    },
    fail(method, ...list) {
      failures.set(method, [...(failures.get(method) ?? []), ...list]);
    },
    waitForPosts(n, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (posts.length < n) return;
          postWaiters.delete(check);
          clearTimeout(timer);
          resolve(posts);
        };
        const timer = setTimeout(() => (postWaiters.delete(check), reject(new Error(`fake slack: ${posts.length} of ${n} posts`))), timeoutMs);
        postWaiters.add(check);
        check();
      });
    },
    async stop() {
      for (const ws of sockets) ws.close();
      await server.stop(true);
    },
  };
}
