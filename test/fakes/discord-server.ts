/**
 * A fake Discord on 127.0.0.1: REST v10 (https://discord.com/developers/docs/reference: `Authorization: Bot <token>`;
 * GET /gateway/bot, GET /users/@me (https://discord.com/developers/docs/resources/user#get-current-user), POST /channels/{id}/messages, POST /channels/{id}/typing; rate-limit headers and 429 bodies with
 * `retry_after`, https://discord.com/developers/docs/topics/rate-limits) and the Gateway WebSocket
 * (https://discord.com/developers/docs/events/gateway): HELLO with heartbeat_interval, heartbeats answered with ACK
 * (or not, to test zombie detection), IDENTIFY -> READY with session_id and resume_gateway_url, RESUME -> the missed
 * dispatches replayed then RESUMED, RECONNECT (op 7) and INVALID_SESSION (op 9) on request. Every dispatch carries
 * the next sequence number; dispatches sent while no socket is connected are replayed on RESUME. A message with files
 * comes as multipart/form-data (https://discord.com/developers/docs/reference#uploading-files): `payload_json` and
 * `files[n]`, each named in the payload's `attachments` by id; the answer lists the attachments.
 */
import type { ServerWebSocket } from "bun";

export interface DiscordPost {
  channel_id: string;
  content: string;
  reply_to?: string;
  id: string;
  /** Files of a multipart message. */
  files?: Array<{ filename: string; content_type: string; bytes: Uint8Array }>;
}

export interface FakeDiscord {
  /** REST root (api_base_url). */
  url: string;
  token: string;
  botId: string;
  posts: DiscordPost[];
  typing: string[];
  identifies: number;
  /** The `d` of the last IDENTIFY. */
  lastIdentify: { token: string; intents: number } | null;
  resumes: Array<{ session_id: string; seq: number | null }>;
  heartbeats: number;
  /** A MESSAGE_CREATE from a user (dm unless guildId). Returns the message id. */
  message(o: {
    channelId: string;
    authorId: string;
    content: string;
    guildId?: string;
    bot?: boolean;
    mentionBot?: boolean;
    /** Files attached to the message, served (without auth, as the CDN does) at the attachment's `url`. */
    attachments?: Array<{ filename: string; content_type: string; bytes: Uint8Array; duration_secs?: number }>;
  }): string;
  /** Terminate the socket without a close frame (a dropped connection). */
  drop(): void;
  /** Send op 7 RECONNECT. */
  reconnect(): void;
  invalidSession(resumable: boolean): void;
  /** Stop answering heartbeats with ACK. */
  ackHeartbeats: boolean;
  /** The next Create Message calls answer 429 (retry_after seconds) with X-RateLimit headers. */
  rateLimit(retryAfterS: number, times?: number): void;
  waitForPosts(n: number, timeoutMs?: number): Promise<DiscordPost[]>;
  stop(): Promise<void>;
}

export function startFakeDiscord(options: { heartbeatIntervalMs?: number } = {}): FakeDiscord {
  const token = "discord-test-token";
  const botId = "900000000000000001";
  const interval = options.heartbeatIntervalMs ?? 1000;
  const posts: DiscordPost[] = [];
  const typing: string[] = [];
  const events: Array<{ s: number; t: string; d: unknown }> = [];
  const sockets = new Set<ServerWebSocket<{ ready: boolean }>>();
  const waiters = new Set<() => void>();
  let seq = 0;
  let nextId = 1_000_000;
  let sessionId = "";
  let limited: number[] = [];
  const state = { lastIdentify: null as { token: string; intents: number } | null, identifies: 0, heartbeats: 0, ackHeartbeats: true, resumes: [] as Array<{ session_id: string; seq: number | null }> };

  const dispatch = (t: string, d: unknown) => {
    const event = { s: ++seq, t, d };
    events.push(event);
    for (const ws of sockets) if (ws.data.ready) ws.send(JSON.stringify({ op: 0, ...event }));
  };

  const files = new Map<string, Uint8Array>();
  const server = Bun.serve<{ ready: boolean }>({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request, srv) {
      const url = new URL(request.url);
      const file = files.get(url.pathname);
      if (file) return new Response(file);
      if (url.pathname === "/gateway" || url.pathname === "/gateway/") return srv.upgrade(request, { data: { ready: false } }) ? undefined : new Response("", { status: 400 });
      if (request.headers.get("authorization") !== `Bot ${token}`) return Response.json({ message: "401: Unauthorized", code: 0 }, { status: 401 });
      if (url.pathname === "/api/v10/gateway/bot")
        return Response.json({ url: `ws://127.0.0.1:${srv.port}/gateway`, shards: 1, session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 } });
      if (url.pathname === "/api/v10/users/@me" && request.method === "GET")
        return Response.json({ id: botId, username: "prx-bot", discriminator: "0", global_name: null, avatar: null, bot: true, verified: true, flags: 0 });
      const typingMatch = /^\/api\/v10\/channels\/(\d+)\/typing$/.exec(url.pathname);
      if (typingMatch && request.method === "POST") {
        typing.push(typingMatch[1]!);
        return new Response(null, { status: 204 });
      }
      const match = /^\/api\/v10\/channels\/(\d+)\/messages$/.exec(url.pathname);
      if (match && request.method === "POST") {
        const headers = { "x-ratelimit-limit": "5", "x-ratelimit-bucket": "fake", "x-ratelimit-reset-after": "0.2" };
        const retry = limited.shift();
        if (retry !== undefined)
          return Response.json({ message: "You are being rate limited.", retry_after: retry, global: false }, { status: 429, headers: { ...headers, "x-ratelimit-remaining": "0", "retry-after": String(Math.ceil(retry)) } });
        let body: { content?: string; message_reference?: { message_id?: string }; attachments?: Array<{ id: number; filename?: string }> };
        const files: NonNullable<DiscordPost["files"]> = [];
        if ((request.headers.get("content-type") ?? "").startsWith("multipart/form-data")) {
          const form = await request.formData();
          body = JSON.parse(String(form.get("payload_json") ?? "{}"));
          for (const a of body.attachments ?? []) {
            const file = form.get(`files[${a.id}]`);
            if (!file || typeof file === "string") return Response.json({ message: "Invalid Form Body", code: 50035 }, { status: 400 });
            files.push({ filename: a.filename ?? file.name, content_type: file.type, bytes: new Uint8Array(await file.arrayBuffer()) });
          }
        } else body = (await request.json()) as typeof body;
        if (files.length > 0) {
          const post = { channel_id: match[1]!, content: body.content ?? "", reply_to: body.message_reference?.message_id, id: String(nextId++), files };
          posts.push(post);
          for (const w of waiters) w();
          const attachments = files.map((f, i) => ({ id: String(nextId + i), filename: f.filename, size: f.bytes.byteLength, content_type: f.content_type, url: `https://cdn.discordapp.com/attachments/${post.channel_id}/${post.id}/${f.filename}` }));
          return Response.json({ id: post.id, channel_id: post.channel_id, content: post.content, attachments }, { headers: { ...headers, "x-ratelimit-remaining": "4" } });
        }
        if (!body.content) return Response.json({ message: "Cannot send an empty message", code: 50006 }, { status: 400 });
        if (body.content.length > 2000) return Response.json({ message: "Invalid Form Body", code: 50035 }, { status: 400 });
        const post = { channel_id: match[1]!, content: body.content, reply_to: body.message_reference?.message_id, id: String(nextId++) };
        posts.push(post);
        for (const w of waiters) w();
        return Response.json({ id: post.id, channel_id: post.channel_id, content: post.content }, { headers: { ...headers, "x-ratelimit-remaining": "4" } });
      }
      return Response.json({ message: "404: Not Found", code: 0 }, { status: 404 });
    },
    websocket: {
      open(ws) {
        sockets.add(ws);
        ws.send(JSON.stringify({ op: 10, d: { heartbeat_interval: interval }, s: null, t: null }));
      },
      message(ws, data) {
        const payload = JSON.parse(String(data)) as { op: number; d: any };
        if (payload.op === 1) {
          state.heartbeats += 1;
          if (state.ackHeartbeats) ws.send(JSON.stringify({ op: 11 }));
        } else if (payload.op === 2) {
          if (payload.d?.token !== token) return void ws.close(4004, "Authentication failed.");
          state.identifies += 1;
          state.lastIdentify = payload.d;
          sessionId = `session-${state.identifies}`;
          ws.data.ready = true;
          const ready = { s: ++seq, t: "READY", d: { v: 10, session_id: sessionId, resume_gateway_url: `ws://127.0.0.1:${server.port}/gateway`, user: { id: botId, username: "prx-bot", bot: true }, guilds: [] } };
          events.push(ready);
          ws.send(JSON.stringify({ op: 0, ...ready }));
        } else if (payload.op === 6) {
          state.resumes.push({ session_id: payload.d.session_id, seq: payload.d.seq });
          if (payload.d.session_id !== sessionId) return void ws.send(JSON.stringify({ op: 9, d: false }));
          ws.data.ready = true;
          for (const event of events.filter((e) => e.s > (payload.d.seq ?? 0))) ws.send(JSON.stringify({ op: 0, ...event }));
          ws.send(JSON.stringify({ op: 0, s: ++seq, t: "RESUMED", d: {} }));
        }
      },
      close(ws) {
        sockets.delete(ws);
      },
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}/api/v10`,
    token,
    botId,
    posts,
    typing,
    get identifies() {
      return state.identifies;
    },
    get lastIdentify() {
      return state.lastIdentify;
    },
    get resumes() {
      return state.resumes;
    },
    get heartbeats() {
      return state.heartbeats;
    },
    get ackHeartbeats() {
      return state.ackHeartbeats;
    },
    set ackHeartbeats(value: boolean) {
      state.ackHeartbeats = value;
    },
    message(o) {
      const id = String(nextId++);
      const attachments = (o.attachments ?? []).map((a, i) => {
        const path = `/attachments/${o.channelId}/${id}${i}/${a.filename}`;
        files.set(path, a.bytes);
        const url = `http://127.0.0.1:${server.port}${path}`;
        return { id: `${id}${i}`, filename: a.filename, content_type: a.content_type, size: a.bytes.length, url, proxy_url: url, ...(a.duration_secs === undefined ? {} : { duration_secs: a.duration_secs }) };
      });
      dispatch("MESSAGE_CREATE", {
        attachments,
        id,
        channel_id: o.channelId,
        ...(o.guildId ? { guild_id: o.guildId } : {}),
        author: { id: o.authorId, username: `user${o.authorId}`, global_name: null, ...(o.bot ? { bot: true } : {}) },
        content: o.content,
        timestamp: new Date().toISOString(),
        mentions: o.mentionBot ? [{ id: botId, username: "prx-bot" }] : [],
        type: 0,
      });
      return id;
    },
    drop() {
      for (const ws of sockets) ws.terminate();
    },
    reconnect() {
      for (const ws of sockets) ws.send(JSON.stringify({ op: 7, d: null }));
    },
    invalidSession(resumable) {
      for (const ws of sockets) ws.send(JSON.stringify({ op: 9, d: resumable }));
    },
    rateLimit(retryAfterS, times = 1) {
      for (let i = 0; i < times; i++) limited.push(retryAfterS);
    },
    waitForPosts(n, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (posts.length < n) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(posts);
        };
        const timer = setTimeout(() => (waiters.delete(check), reject(new Error(`fake discord: ${posts.length} of ${n} posts`))), timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async stop() {
      limited = [];
      for (const ws of sockets) ws.close();
      await server.stop(true);
    },
  };
}
