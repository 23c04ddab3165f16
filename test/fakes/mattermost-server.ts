/**
 * A fake Mattermost server on 127.0.0.1, answering as API v4 documents it (https://developers.mattermost.com/api-documentation/):
 * - REST with `Authorization: Bearer <token>`: GET /api/v4/users/me; POST /api/v4/posts `{channel_id, message,
 *   root_id?}` answers 201 with the post (a message over MaxPostSize, 16,383 characters, is 400); POST
 *   /api/v4/users/me/typing; GET /api/v4/files/{file_id}; POST /api/v4/files (multipart `channel_id`, `files`;
 *   answers 201 `{file_infos: [{id, name, mime_type, size}], client_ids: []}`) and posts naming them in `file_ids`. Errors are `{id, message, detailed_error, request_id,
 *   status_code}`.
 * - WebSocket /api/v4/websocket (https://developers.mattermost.com/api-documentation/#/#websocket): the client sends
 *   `{seq, action: "authentication_challenge", data: {token}}`, the server answers `{status: "OK", seq_reply}` (or
 *   `{status: "FAIL", seq_reply, error}`) and `hello`; `posted` events carry `data.post` as a JSON string,
 *   `data.channel_type` ("D", "O", ...), `data.sender_name` ("@name") and `data.mentions` (a JSON string of user ids).
 */
import type { ServerWebSocket } from "bun";
import { waitFor } from "../helpers/wait.ts";

export interface MattermostPost {
  id: string;
  channel_id: string;
  message: string;
  root_id: string;
  user_id: string;
  /** Files of the post (uploaded with POST /api/v4/files). */
  files?: Array<{ name: string; mime: string; bytes: Uint8Array }>;
}

export interface FakeMattermost {
  url: string;
  token: string;
  botId: string;
  botName: string;
  posts: MattermostPost[];
  typing: number;
  connections: number;
  /** Broadcast a `posted` event to authenticated sockets; returns the post. */
  post(p: { user: string; name?: string; channel: string; type?: "D" | "O" | "P" | "G"; text: string; rootId?: string; mention?: boolean; fromBot?: boolean; files?: Array<{ id: string; mime_type: string; size: number }> }): MattermostPost & { create_at: number };
  file(bytes: Uint8Array): string;
  drop(): void;
  waitForPosts(n: number, timeoutMs?: number): Promise<MattermostPost[]>;
  stop(): Promise<void>;
}

const MAX_POST_SIZE = 16_383;

export function startFakeMattermost(): FakeMattermost {
  const token = "mm-bot-token";
  const botId = "bot0000000000000000000000a";
  const botName = "prxbot";
  const sockets = new Set<ServerWebSocket<{ authed: boolean }>>();
  const files = new Map<string, Uint8Array>();
  const infos = new Map<string, { name: string; mime: string; bytes: Uint8Array }>();
  let seq = 0;
  let ids = 0;
  const newId = () => `p${String(++ids).padStart(25, "0")}`;
  const error = (status: number, id: string, message: string) =>
    Response.json({ id, message, detailed_error: "", request_id: "req", status_code: status }, { status });

  const fake: FakeMattermost = {
    url: "",
    token,
    botId,
    botName,
    posts: [],
    typing: 0,
    connections: 0,
    post(p) {
      const post = {
        id: newId(),
        create_at: Date.now(),
        update_at: Date.now(),
        delete_at: 0,
        user_id: p.user,
        channel_id: p.channel,
        root_id: p.rootId ?? "",
        message: p.text,
        type: "",
        props: p.fromBot ? { from_bot: "true" } : {},
        file_ids: p.files?.map((f) => f.id) ?? [],
        metadata: p.files ? { files: p.files } : {},
      };
      const data: Record<string, unknown> = {
        channel_display_name: p.type === "D" ? `@${p.name ?? "user"}` : "Town Square",
        channel_name: p.channel,
        channel_type: p.type ?? "D",
        post: JSON.stringify(post),
        sender_name: `@${p.name ?? "user"}`,
        team_id: "team1",
      };
      if (p.mention) data.mentions = JSON.stringify([botId]);
      const frame = JSON.stringify({ event: "posted", data, broadcast: { omit_users: null, user_id: "", channel_id: p.channel, team_id: "" }, seq: ++seq });
      for (const ws of sockets) if (ws.data.authed) ws.send(frame);
      return post;
    },
    file(bytes) {
      const id = `f${String(files.size + 1).padStart(25, "0")}`;
      files.set(id, bytes);
      return id;
    },
    drop() {
      for (const ws of sockets) ws.close(1001, "going away");
    },
    async waitForPosts(n, timeoutMs) {
      await waitFor(() => fake.posts.length >= n, () => `${n} Mattermost posts, got ${JSON.stringify(fake.posts)}`, timeoutMs);
      return fake.posts.slice(0, n);
    },
    stop: () => server.stop(true),
  };

  const server = Bun.serve<{ authed: boolean }, never>({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request, srv) {
      const url = new URL(request.url);
      if (url.pathname === "/api/v4/websocket") return srv.upgrade(request, { data: { authed: false } }) ? undefined : new Response("upgrade failed", { status: 400 });
      if (request.headers.get("authorization") !== `Bearer ${token}`) return error(401, "api.context.session_expired.app_error", "Invalid or expired session, please login again.");
      if (url.pathname === "/api/v4/users/me" && request.method === "GET") return Response.json({ id: botId, username: botName, is_bot: true });
      if (url.pathname === "/api/v4/users/me/typing" && request.method === "POST") {
        fake.typing += 1;
        return Response.json({ status: "OK" });
      }
      const file = /^\/api\/v4\/files\/(\w+)$/.exec(url.pathname);
      if (file) {
        const bytes = files.get(file[1]!);
        return bytes ? new Response(bytes) : error(404, "app.file_info.get.app_error", "Unable to get the file info.");
      }
      if (url.pathname === "/api/v4/files" && request.method === "POST") {
        const form = await request.formData().catch(() => null);
        const channel = form?.get("channel_id");
        const uploaded = form?.getAll("files").filter((f) => typeof f !== "string") as Array<Blob & { name: string }> ?? [];
        if (!channel || uploaded.length === 0) return error(400, "api.file.upload_file.incorrect_number_of_files.app_error", "Unable to upload file(s). Have 0 files.");
        const file_infos = [];
        for (const f of uploaded) {
          const id = newId();
          const bytes = new Uint8Array(await f.arrayBuffer());
          files.set(id, bytes);
          infos.set(id, { name: f.name, mime: f.type, bytes });
          file_infos.push({ id, name: f.name, mime_type: f.type, size: bytes.byteLength, channel_id: channel });
        }
        return Response.json({ file_infos, client_ids: [] }, { status: 201 });
      }
      if (url.pathname === "/api/v4/posts" && request.method === "POST") {
        const body = (await request.json().catch(() => null)) as { channel_id?: string; message?: string; root_id?: string; file_ids?: string[] } | null;
        if (!body?.channel_id) return error(400, "api.context.invalid_body_param.app_error", "Invalid or missing channel_id in request body.");
        if ((body.message ?? "").length > MAX_POST_SIZE) return error(400, "model.post.is_valid.msg.app_error", "Invalid Message.");
        const attached = (body.file_ids ?? []).map((id) => infos.get(id));
        if (attached.some((f) => !f)) return error(400, "api.post.create_post.file_ids.app_error", "Invalid file_ids.");
        if (!body.message && attached.length === 0) return error(400, "api.post.create_post.message.app_error", "Message is empty.");
        const post = { id: newId(), channel_id: body.channel_id, message: body.message ?? "", root_id: body.root_id ?? "", user_id: botId, ...(attached.length ? { files: attached as NonNullable<MattermostPost["files"]> } : {}) };
        fake.posts.push(post);
        return Response.json({ ...post, create_at: Date.now(), type: "", props: {} }, { status: 201 });
      }
      return error(404, "api.context.404.app_error", "Sorry, we could not find the page.");
    },
    websocket: {
      open(ws) {
        fake.connections += 1;
        sockets.add(ws);
      },
      message(ws, raw) {
        const frame = JSON.parse(String(raw)) as { seq?: number; action?: string; data?: { token?: string } };
        if (frame.action !== "authentication_challenge") return;
        if (frame.data?.token !== token) {
          ws.send(JSON.stringify({ status: "FAIL", seq_reply: frame.seq, error: { id: "api.web_socket_router.not_authenticated.app_error", message: "not authenticated" } }));
          return;
        }
        ws.data.authed = true;
        ws.send(JSON.stringify({ status: "OK", seq_reply: frame.seq }));
        ws.send(JSON.stringify({ event: "hello", data: { connection_id: "c1", server_version: "9.11.0" }, broadcast: { user_id: botId }, seq: ++seq }));
      },
      close(ws) {
        sockets.delete(ws);
      },
    },
  });
  fake.url = `http://127.0.0.1:${server.port}`;
  return fake;
}
