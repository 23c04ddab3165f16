/**
 * A fake Telegram Bot API on 127.0.0.1 (https://core.telegram.org/bots/api): `POST /bot<token>/<method>` with JSON,
 * answers in the `{ok, result}` / `{ok: false, error_code, description, parameters}` envelope. getUpdates long-polls
 * (waits up to `timeout` seconds) and confirms every update below `offset`, as the real one does; sendMessage checks
 * MarkdownV2 (every special character outside code escaped, else 400 "can't parse entities") and the 4096-character
 * limit ("message is too long"). sendPhoto and sendDocument take a new file as multipart/form-data
 * (https://core.telegram.org/bots/api#sending-files: the file under `photo`/`document`, other parameters as fields,
 * objects JSON-serialized) and answer the Message; a photo over 10 MB is refused as Telegram does. Tests deliver
 * updates, script failures and read what the bot sent.
 */
export interface UploadedFile {
  method: "sendPhoto" | "sendDocument";
  chat_id: string;
  name: string;
  mime: string;
  bytes: Uint8Array;
  reply_to?: number;
  message_thread_id?: number;
  message_id: number;
}

export interface SentMessage {
  chat_id: string;
  text: string;
  /** The text as a user sees it (MarkdownV2 escapes removed). */
  visible: string;
  parse_mode?: string;
  reply_to?: number;
  message_thread_id?: number;
  message_id: number;
  /** performance.now() when the fake received it. */
  at: number;
}

export interface ScriptedFailure {
  status: number;
  description: string;
  retry_after?: number;
  /** Close the connection without an answer instead (a dropped socket). */
  drop?: boolean;
  /** Never answer: the request stays open until the client gives up (a connection that died silently). */
  hang?: boolean;
  /** Answer 200 with a body that is not JSON. */
  garbage?: boolean;
  /** Answer 200 with an empty result padded to this many bytes, streamed in 64 KiB chunks as the client reads (never held whole). */
  streamBytes?: number;
}

export interface FakeTelegram {
  url: string;
  token: string;
  sent: SentMessage[];
  /** Files sent with sendPhoto / sendDocument. */
  uploads: UploadedFile[];
  actions: Array<{ chat_id: string; action: string }>;
  calls: Array<{ method: string; body: Record<string, unknown> }>;
  /** Queue a text message from a user; returns its update_id. */
  message(opts: { chatId: number; text: string; fromId?: number; firstName?: string; isBot?: boolean; chatType?: "private" | "group" | "supergroup"; entities?: unknown[]; replyToBot?: boolean; messageId?: number }): number;
  /**
   * Keep a file the bot can fetch: getFile answers its File object ({file_id, file_unique_id, file_size, file_path})
   * and GET /file/bot<token>/<file_path> serves the bytes. Returns its file_id.
   */
  file(bytes: Uint8Array, path: string): string;
  /** Queue any raw update object (update_id is filled in when missing). */
  update(raw: Record<string, unknown>): number;
  /** Make the next calls of `method` fail (in order). */
  fail(method: string, ...failures: ScriptedFailure[]): void;
  /** Updates not yet confirmed by an offset. */
  pending(): number;
  /** Resolves once `n` messages were sent (or rejects after timeoutMs). */
  waitForSent(n: number, timeoutMs?: number): Promise<SentMessage[]>;
  stop(): Promise<void>;
}

const SPECIAL = "_*[]()~`>#+-=|{}.!\\";
export const BOT = { id: 999_000, is_bot: true, first_name: "prx", username: "prx_test_bot" };

/** Whether every MarkdownV2 special character outside code is escaped (the fake's stand-in for Telegram's parser). */
function markdownV2Error(text: string): string | null {
  let inCode: "" | "`" | "```" = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\") {
      i++;
      continue;
    }
    if (text.startsWith("```", i)) {
      inCode = inCode === "```" ? "" : inCode === "" ? "```" : inCode;
      i += 2;
      continue;
    }
    if (c === "`" && inCode !== "```") {
      inCode = inCode === "`" ? "" : "`";
      continue;
    }
    if (inCode === "" && SPECIAL.includes(c))
      return `Bad Request: can't parse entities: Character '${c}' is reserved and must be escaped with the preceding '\\'`;
  }
  return inCode === "" ? null : "Bad Request: can't parse entities: Can't find end of the entity";
}

/** `{"ok":true,"result":[]}` padded with spaces to exactly `bytes` bytes, made chunk by chunk as the client pulls it. */
function streamedBody(bytes: number): Response {
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  const head = new TextEncoder().encode('{"ok":true,"result":[]}');
  let left = bytes;
  let first = true;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (left <= 0) return controller.close();
      if (first) {
        first = false;
        controller.enqueue(head);
        left -= head.length;
        return;
      }
      const size = Math.min(left, chunk.length);
      controller.enqueue(chunk.subarray(0, size));
      left -= size;
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
}

export function startFakeTelegram(token = "123456:TEST-token"): FakeTelegram {
  const queue: Array<Record<string, unknown> & { update_id: number }> = [];
  const failures = new Map<string, ScriptedFailure[]>();
  const waiters = new Set<() => void>();
  const sentWaiters = new Set<() => void>();
  const sent: SentMessage[] = [];
  const uploads: UploadedFile[] = [];
  const actions: FakeTelegram["actions"] = [];
  const calls: FakeTelegram["calls"] = [];
  let nextUpdate = 1;
  let nextMessage = 1000;
  const stopped = new AbortController();
  const wake = () => {
    for (const w of waiters) w();
  };
  const ok = (result: unknown) => Response.json({ ok: true, result });
  const err = (status: number, description: string, retry_after?: number) =>
    Response.json({ ok: false, error_code: status, description, ...(retry_after ? { parameters: { retry_after } } : {}) }, { status });

  const files = new Map<string, { bytes: Uint8Array; path: string }>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 120,
    async fetch(request) {
      const pathname = new URL(request.url).pathname;
      const download = /^\/file\/bot([^/]+)\/(.+)$/.exec(pathname);
      if (download) {
        if (download[1] !== token) return err(401, "Unauthorized");
        calls.push({ method: "file download", body: { path: decodeURIComponent(download[2]!) } });
        const found = [...files.values()].find((f) => f.path === decodeURIComponent(download[2]!));
        return found ? new Response(found.bytes) : err(404, "Not Found");
      }
      const match = /^\/bot([^/]+)\/(\w+)$/.exec(pathname);
      if (!match) return err(404, "Not Found");
      if (match[1] !== token) return err(401, "Unauthorized");
      const method = match[2]!;
      let body: Record<string, unknown> = {};
      let file: File | null = null;
      if ((request.headers.get("content-type") ?? "").startsWith("multipart/form-data")) {
        for (const [key, value] of (await request.formData()).entries()) {
          if (typeof value === "string") body[key] = key === "reply_parameters" ? JSON.parse(value) : value;
          else file = value as File;
        }
      } else body = (await request.json().catch(() => ({}))) as Record<string, unknown>;
      calls.push({ method, body });
      const failure = failures.get(method)?.shift();
      if (failure?.drop) return new Response(new ReadableStream({ start: (c) => c.error(new Error("dropped")) }));
      if (failure?.hang) {
        await new Promise<void>((resolve) => {
          request.signal.addEventListener("abort", () => resolve(), { once: true });
          stopped.signal.addEventListener("abort", () => resolve(), { once: true });
        });
        return err(499, "client gave up");
      }
      if (failure?.garbage) return new Response("<html>502 Bad Gateway</html>", { status: 200, headers: { "content-type": "text/html" } });
      if (failure?.streamBytes !== undefined) return streamedBody(failure.streamBytes);
      if (failure) return err(failure.status, failure.description, failure.retry_after);
      switch (method) {
        case "getMe":
          return ok(BOT);
        case "getUpdates": {
          const offset = Number(body.offset ?? 0);
          while (queue.length && queue[0]!.update_id < offset) queue.shift();
          const deadline = Date.now() + Number(body.timeout ?? 0) * 1000;
          while (queue.length === 0 && Date.now() < deadline && !stopped.signal.aborted && !request.signal.aborted) {
            await new Promise<void>((resolve) => {
              const done = () => (waiters.delete(done), clearTimeout(t), resolve());
              const t = setTimeout(done, Math.max(1, deadline - Date.now()));
              waiters.add(done);
            });
          }
          return ok(queue.slice(0, Number(body.limit ?? 100)));
        }
        case "getFile": {
          const found = files.get(String(body.file_id ?? ""));
          if (!found) return err(400, "Bad Request: invalid file_id");
          return ok({ file_id: body.file_id, file_unique_id: `u${body.file_id}`, file_size: found.bytes.length, file_path: found.path });
        }
        case "sendChatAction":
          actions.push({ chat_id: String(body.chat_id), action: String(body.action) });
          return ok(true);
        case "sendMessage": {
          const text = String(body.text ?? "");
          if (body.parse_mode === "MarkdownV2") {
            const problem = markdownV2Error(text);
            if (problem) return err(400, problem);
          }
          const visible = body.parse_mode === "MarkdownV2" ? text.replace(/\\(.)/gs, "$1") : text;
          if (visible.length === 0) return err(400, "Bad Request: message text is empty");
          if (visible.length > 4096) return err(400, "Bad Request: message is too long");
          const reply = body.reply_parameters as { message_id?: number } | undefined;
          const message_id = nextMessage++;
          sent.push({
            chat_id: String(body.chat_id),
            text,
            visible,
            parse_mode: body.parse_mode as string | undefined,
            reply_to: reply?.message_id,
            message_thread_id: body.message_thread_id as number | undefined,
            message_id,
            at: performance.now(),
          });
          for (const w of sentWaiters) w();
          return ok({ message_id, date: Math.floor(Date.now() / 1000), chat: { id: Number(body.chat_id), type: "private" }, text: visible });
        }
        case "sendPhoto":
        case "sendDocument": {
          const field = method === "sendPhoto" ? "photo" : "document";
          if (!file) return err(400, `Bad Request: there is no ${field} in the request`);
          if (method === "sendPhoto" && file.size > 10 * 1024 * 1024) return err(400, "Bad Request: PHOTO_INVALID_DIMENSIONS");
          const reply = body.reply_parameters as { message_id?: number } | undefined;
          const message_id = nextMessage++;
          uploads.push({
            method,
            chat_id: String(body.chat_id),
            name: file.name,
            mime: file.type,
            bytes: new Uint8Array(await file.arrayBuffer()),
            reply_to: reply?.message_id,
            message_thread_id: body.message_thread_id === undefined ? undefined : Number(body.message_thread_id),
            message_id,
          });
          for (const w of sentWaiters) w();
          const media = method === "sendPhoto" ? { photo: [{ file_id: `p${message_id}`, file_unique_id: `u${message_id}`, width: 1, height: 1 }] } : { document: { file_id: `d${message_id}`, file_unique_id: `u${message_id}`, file_name: file.name } };
          return ok({ message_id, date: Math.floor(Date.now() / 1000), chat: { id: Number(body.chat_id), type: "private" }, ...media });
        }
        default:
          return err(404, "Not Found: method not found");
      }
    },
  });

  const update = (raw: Record<string, unknown>) => {
    const update_id = typeof raw.update_id === "number" ? raw.update_id : nextUpdate++;
    queue.push({ ...raw, update_id });
    wake();
    return update_id;
  };

  return {
    url: `http://127.0.0.1:${server.port}`,
    token,
    sent,
    uploads,
    actions,
    calls,
    update,
    file(bytes, path) {
      const id = `file-${files.size + 1}`;
      files.set(id, { bytes, path });
      return id;
    },
    message(o) {
      const chatType = o.chatType ?? "private";
      const from = { id: o.fromId ?? o.chatId, is_bot: o.isBot ?? false, first_name: o.firstName ?? "Ada" };
      return update({
        message: {
          message_id: o.messageId ?? nextMessage++,
          from,
          chat: chatType === "private" ? { id: o.chatId, type: "private", first_name: from.first_name } : { id: o.chatId, type: chatType, title: "group" },
          date: Math.floor(Date.now() / 1000),
          text: o.text,
          ...(o.entities ? { entities: o.entities } : {}),
          ...(o.replyToBot ? { reply_to_message: { message_id: 1, from: BOT, chat: { id: o.chatId, type: chatType }, date: 0 } } : {}),
        },
      });
    },
    fail(method, ...list) {
      failures.set(method, [...(failures.get(method) ?? []), ...list]);
    },
    pending: () => queue.length,
    waitForSent(n, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (sent.length >= n) {
            sentWaiters.delete(check);
            clearTimeout(timer);
            resolve(sent);
          }
        };
        const timer = setTimeout(() => {
          sentWaiters.delete(check);
          reject(new Error(`fake telegram: ${sent.length} of ${n} messages sent after ${timeoutMs} ms`));
        }, timeoutMs);
        sentWaiters.add(check);
        check();
      });
    },
    async stop() {
      stopped.abort();
      wake();
      await server.stop(true);
    },
  };
}

if (import.meta.main) {
  const fake = startFakeTelegram(process.argv[2]);
  console.log(fake.url);
}
