/**
 * A fake Matrix homeserver on 127.0.0.1 speaking the Client-Server API v3 (https://spec.matrix.org/v1.11/client-server-api/):
 * whoami, `/sync` long polling with `since`/`next_batch` (events after the token; `timeout` honoured), join, typing,
 * and `PUT /rooms/{room}/send/m.room.message/{txnId}` deduplicated by transaction id as the spec requires
 * (#transaction-identifiers), and `POST /_matrix/media/v3/upload?filename=` (#post_matrixmediav3upload: the raw
 * bytes with their Content-Type, answers `{content_uri}`). Errors are `{errcode, error}`; M_LIMIT_EXCEEDED carries
 * retry_after_ms.
 */
export interface MatrixSent {
  room: string;
  txn: string;
  content: { msgtype: string; body: string; url?: string; info?: { mimetype?: string; size?: number }; "m.relates_to"?: Record<string, unknown> };
  event_id: string;
}

export interface FakeMatrix {
  url: string;
  token: string;
  userId: string;
  sent: MatrixSent[];
  /** An uploaded file's bytes and Content-Type by its mxc:// URI. */
  uploaded(uri: string): { bytes: Uint8Array; type: string } | undefined;
  joins: string[];
  typing: string[];
  syncs: Array<string | null>;
  /** A text message in a room (members: joined count for the summary; 2 = a DM). Returns the event id. */
  message(o: { room: string; sender: string; body: string; members?: number; threadRoot?: string; msgtype?: string; mention?: boolean; content?: Record<string, unknown> }): string;
  /** Keep a file as the media repository does; returns its mxc:// URI (served by the authenticated media download). */
  upload(bytes: Uint8Array): string;
  invite(room: string, inviter: string): void;
  limit(method: "send", retryAfterMs: number): void;
  waitForSent(n: number, timeoutMs?: number): Promise<MatrixSent[]>;
  stop(): Promise<void>;
}

export function startFakeMatrix(): FakeMatrix {
  const token = "syt_test_token";
  const userId = "@prx:fake.local";
  const timeline: Array<{ pos: number; room: string; members: number; event: Record<string, unknown> }> = [];
  const invites: Array<{ pos: number; room: string; inviter: string }> = [];
  const sent: MatrixSent[] = [];
  const byTxn = new Map<string, string>();
  const joins: string[] = [];
  const typing: string[] = [];
  const syncs: Array<string | null> = [];
  const wakers = new Set<() => void>();
  const sentWaiters = new Set<() => void>();
  let pos = 0;
  let eventNo = 0;
  let sendLimits: number[] = [];
  const error = (status: number, errcode: string, message: string, extra: Record<string, unknown> = {}) =>
    Response.json({ errcode, error: message, ...extra }, { status });

  const media = new Map<string, Uint8Array>();
  /** The Content-Type each upload came with, by mxc URI. */
  const uploadTypes = new Map<string, string>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 120,
    async fetch(request) {
      const url = new URL(request.url);
      if (request.headers.get("authorization") !== `Bearer ${token}`) return error(401, "M_UNKNOWN_TOKEN", "Invalid access token");
      const path = url.pathname;
      const download = /^\/_matrix\/client\/v1\/media\/download\/localhost\/(\w+)$/.exec(path);
      if (download) {
        const file = media.get(download[1]!);
        return file ? new Response(file) : error(404, "M_NOT_FOUND", "Not found");
      }
      if (path === "/_matrix/media/v3/upload" && request.method === "POST") {
        const bytes = new Uint8Array(await request.arrayBuffer());
        if (bytes.byteLength === 0) return error(400, "M_BAD_JSON", "empty upload");
        const id = `media${media.size + 1}`;
        media.set(id, bytes);
        uploadTypes.set(`mxc://localhost/${id}`, request.headers.get("content-type") ?? "");
        return Response.json({ content_uri: `mxc://localhost/${id}` });
      }
      if (path === "/_matrix/client/v3/account/whoami") return Response.json({ user_id: userId, device_id: "DEV" });
      if (path === "/_matrix/client/v3/sync") {
        const since = url.searchParams.get("since");
        syncs.push(since);
        const from = since ? Number(since.slice(1)) : 0;
        const deadline = Date.now() + Number(url.searchParams.get("timeout") ?? "0");
        while (pos <= from && Date.now() < deadline && !request.signal.aborted)
          await new Promise<void>((resolve) => {
            const done = () => (wakers.delete(done), clearTimeout(t), resolve());
            const t = setTimeout(done, Math.max(1, deadline - Date.now()));
            wakers.add(done);
          });
        const join: Record<string, { timeline: { events: unknown[]; limited: boolean }; summary: Record<string, number> }> = {};
        for (const item of timeline.filter((t) => t.pos > from)) {
          join[item.room] ??= { timeline: { events: [], limited: false }, summary: { "m.joined_member_count": item.members } };
          join[item.room]!.timeline.events.push(item.event);
        }
        const invite: Record<string, unknown> = {};
        for (const item of invites.filter((i) => i.pos > from))
          invite[item.room] = { invite_state: { events: [{ type: "m.room.member", state_key: userId, sender: item.inviter, content: { membership: "invite" } }] } };
        return Response.json({ next_batch: `s${pos}`, rooms: { join, invite, leave: {} } });
      }
      const join = /^\/_matrix\/client\/v3\/join\/([^/]+)$/.exec(path);
      if (join && request.method === "POST") {
        joins.push(decodeURIComponent(join[1]!));
        return Response.json({ room_id: decodeURIComponent(join[1]!) });
      }
      const typingMatch = /^\/_matrix\/client\/v3\/rooms\/([^/]+)\/typing\/([^/]+)$/.exec(path);
      if (typingMatch && request.method === "PUT") {
        typing.push(decodeURIComponent(typingMatch[1]!));
        return Response.json({});
      }
      const send = /^\/_matrix\/client\/v3\/rooms\/([^/]+)\/send\/m\.room\.message\/([^/]+)$/.exec(path);
      if (send && request.method === "PUT") {
        const limit = sendLimits.shift();
        if (limit !== undefined) return error(429, "M_LIMIT_EXCEEDED", "Too many requests", { retry_after_ms: limit });
        const txn = decodeURIComponent(send[2]!);
        const known = byTxn.get(txn);
        if (known) return Response.json({ event_id: known });
        const content = (await request.json()) as MatrixSent["content"];
        if (typeof content.body !== "string") return error(400, "M_BAD_JSON", "body missing");
        const event_id = `$sent${++eventNo}`;
        byTxn.set(txn, event_id);
        sent.push({ room: decodeURIComponent(send[1]!), txn, content, event_id });
        for (const w of sentWaiters) w();
        return Response.json({ event_id });
      }
      return error(404, "M_UNRECOGNIZED", "Unrecognized request");
    },
  });

  const wake = () => {
    for (const w of wakers) w();
  };
  return {
    url: `http://127.0.0.1:${server.port}`,
    token,
    userId,
    sent,
    uploaded(uri) {
      const bytes = media.get(uri.replace("mxc://localhost/", ""));
      return bytes ? { bytes, type: uploadTypes.get(uri) ?? "" } : undefined;
    },
    joins,
    typing,
    syncs,
    message(o) {
      const event_id = `$ev${++eventNo}`;
      const content: Record<string, unknown> = { msgtype: o.msgtype ?? "m.text", body: o.body, ...o.content };
      if (o.threadRoot) content["m.relates_to"] = { rel_type: "m.thread", event_id: o.threadRoot, is_falling_back: true };
      if (o.mention) content["m.mentions"] = { user_ids: [userId] };
      timeline.push({ pos: ++pos, room: o.room, members: o.members ?? 2, event: { type: "m.room.message", event_id, sender: o.sender, origin_server_ts: Date.now(), content } });
      wake();
      return event_id;
    },
    upload(bytes) {
      const id = `media${media.size + 1}`;
      media.set(id, bytes);
      return `mxc://localhost/${id}`;
    },
    invite(room, inviter) {
      invites.push({ pos: ++pos, room, inviter });
      wake();
    },
    limit(_method, retryAfterMs) {
      sendLimits.push(retryAfterMs);
    },
    waitForSent(n, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (sent.length < n) return;
          sentWaiters.delete(check);
          clearTimeout(timer);
          resolve(sent);
        };
        const timer = setTimeout(() => (sentWaiters.delete(check), reject(new Error(`fake matrix: ${sent.length} of ${n} sent`))), timeoutMs);
        sentWaiters.add(check);
        check();
      });
    },
    async stop() {
      sendLimits = [];
      wake();
      await server.stop(true);
    },
  };
}
