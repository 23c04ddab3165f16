import type { z } from "zod";
import { errorMessage, PrxError } from "../../core/errors.ts";
import { parseJsonBounded } from "../../core/json/index.ts";
import { Backoff, sleep } from "../../core/supervise/index.ts";
import { PlatformChannel } from "../base.ts";
import { ATTACHMENT_FETCH_TIMEOUT_MS, CHANNEL_MAX_ATTACHMENTS, PLATFORM_BACKOFF, PLATFORM_MAX_RESPONSE_BYTES, SIGNAL_MAX_MESSAGE_CHARS } from "../limits.ts";
import { PlatformError } from "../platform-error.ts";
import { platformJson } from "../platform-json.ts";
import type { ChannelSetup, InboundAttachment, InboundMessage, OnMessage, OutboundAttachment, OutboundReply, ReplyTarget } from "../types.ts";
import { readSse } from "./sse.ts";
import { AccountListSchema, GetAttachmentSchema, JSON_RPC_METHOD_NOT_FOUND, ReceiveSchema, RpcAnswerSchema, SendResultSchema, VersionSchema, type Envelope, type RpcAnswer } from "./wire.ts";

/** A group chat's id is "group:<base64 group id>"; any other chat id is the other person (number or UUID). */
const GROUP_PREFIX = "group:";

/** A data message -> the inbound shape (undefined for receipts, typing, sync messages and empty messages). */
export function normalizeSignal(channel: string, envelope: Envelope, account: string | null): InboundMessage | undefined {
  const data = envelope.dataMessage;
  const sender = envelope.sourceNumber ?? envelope.sourceUuid ?? envelope.source;
  if (!data || !sender) return undefined;
  const attachments: InboundAttachment[] = [];
  for (const file of data.attachments ?? []) {
    const kind = file.contentType?.startsWith("image/") ? "image" : file.contentType?.startsWith("audio/") ? "audio" : null;
    if (kind && attachments.length < CHANNEL_MAX_ATTACHMENTS) attachments.push({ kind, ref: file.id, ...(file.size === undefined ? {} : { bytes: file.size }) });
  }
  const text = data.message ?? "";
  if (!text && attachments.length === 0) return undefined;
  const group = data.groupInfo?.groupId;
  const me = (id: string | null | undefined) => account !== null && id === account;
  return {
    // a Signal message is identified by its author and its timestamp
    id: `${sender}:${data.timestamp}`,
    channel,
    chatId: group ? `${GROUP_PREFIX}${group}` : sender,
    chatKind: group ? "group" : "dm",
    threadId: null,
    senderId: sender,
    senderDisplay: (envelope.sourceName || sender).slice(0, 256),
    senderIsBot: me(sender),
    text,
    replyTo: data.quote ? `${data.quote.authorNumber ?? data.quote.author}:${data.quote.id}` : null,
    mentioned: (data.mentions ?? []).some((m) => me(m.number) || me(m.uuid)) || me(data.quote?.authorNumber) || me(data.quote?.author),
    timestamp: data.timestamp,
    ...(attachments.length > 0 ? { attachments } : {}),
  };
}

/**
 * Signal through signal-cli's HTTP daemon (`signal-cli -a +NUMBER daemon --http 127.0.0.1:8080`): receive
 * notifications from the SSE stream /api/v1/events (reconnected with backoff, resumed with Last-Event-ID, the last id
 * kept as the channel's cursor), replies and typing through JSON-RPC at /api/v1/rpc.
 */
export class SignalChannel extends PlatformChannel {
  readonly kind = "signal" as const;
  readonly capabilities = { edit: false, threads: false, maxMessageLength: SIGNAL_MAX_MESSAGE_CHARS, typing: true, attachments: true };
  private readonly base: string;
  private readonly account: string | null;
  private rpcId = 0;

  constructor(setup: ChannelSetup) {
    super(setup);
    if (!setup.config.api_base_url) {
      throw new PrxError("CHANNEL_CONFIG", `channel ${this.name}: Signal needs the URL of signal-cli's HTTP daemon (api_base_url)`, {
        hint: `run signal-cli -a +NUMBER daemon --http 127.0.0.1:8080 and set api_base_url = "http://127.0.0.1:8080" in [channels.${this.name}]`,
      });
    }
    this.base = setup.config.api_base_url.replace(/\/$/, "");
    this.account = setup.config.account ?? null;
  }

  /** One JSON-RPC exchange, its error included; `params` go as given (no account added). */
  private rpcAnswer(method: string, params: Record<string, unknown>, signal = this.stopper.signal): Promise<RpcAnswer> {
    const id = ++this.rpcId;
    return platformJson({
      platform: "signal",
      what: method,
      url: `${this.base}/api/v1/rpc`,
      body: { jsonrpc: "2.0", method, params, id },
      schema: RpcAnswerSchema,
      bounds: { timeoutMs: this.limits.requestTimeoutMs, signal },
    });
  }

  /** One JSON-RPC call; a JSON-RPC error is the daemon's answer (not retried), a transport failure is retryable. */
  private async rpc<T>(method: string, params: Record<string, unknown>, schema: z.ZodType<T>, signal = this.stopper.signal): Promise<T> {
    const answer = await this.rpcAnswer(method, this.account ? { account: this.account, ...params } : params, signal);
    if (answer.error) throw new PlatformError("signal", `${method}: ${answer.error.message} (JSON-RPC error ${answer.error.code})`, 200, false);
    const parsed = schema.safeParse(answer.result);
    if (!parsed.success) throw new PlatformError("signal", `${method}: unexpected result: ${parsed.error.issues[0]?.message}`, 200, false);
    return parsed.data;
  }

  /**
   * signal-cli holds the account's keys itself; the check asks the daemon which accounts it serves (`listAccounts` of a
   * multi-account daemon) and whether the configured one is among them. A daemon started with -a serves that one
   * account only and does not implement listAccounts: then its `version` answer is what there is to check.
   */
  async checkCredentials(): Promise<string> {
    const version = VersionSchema.safeParse((await this.rpcAnswer("version", {})).result);
    const daemon = `signal-cli ${version.success ? version.data.version : "(version unknown)"} at ${this.base}`;
    const answer = await this.rpcAnswer("listAccounts", {});
    if (answer.error?.code === JSON_RPC_METHOD_NOT_FOUND) return `${daemon}: a single-account daemon (it serves the account it was started with, -a)`;
    if (answer.error) throw new PlatformError("signal", `listAccounts: ${answer.error.message} (JSON-RPC error ${answer.error.code})`, 200, false);
    const parsed = AccountListSchema.safeParse(answer.result);
    if (!parsed.success) throw new PlatformError("signal", `listAccounts: unexpected result: ${parsed.error.issues[0]?.message}`, 200, false);
    const accounts = parsed.data.map((a) => a.number ?? a.aci).filter((a): a is string => !!a);
    if (this.account && !parsed.data.some((a) => a.number === this.account || a.aci === this.account)) {
      throw new PrxError("CHANNEL_CONFIG", `channel ${this.name}: account ${this.account} is not registered with ${daemon} (it has ${accounts.join(", ") || "no accounts"})`, {
        hint: `register or link it there (signal-cli -a ${this.account} register, or link), or set account in [channels.${this.name}] to one it has`,
      });
    }
    return `${daemon}: ${this.account ? `account ${this.account} registered` : `accounts ${accounts.join(", ") || "(none)"}`}`;
  }

  async start(onMessage: OnMessage): Promise<void> {
    await this.retrying("daemon check", async () => {
      const response = await fetch(`${this.base}/api/v1/check`, { signal: AbortSignal.any([this.stopper.signal, AbortSignal.timeout(this.limits.requestTimeoutMs)]) }).catch((cause: unknown) => {
        throw new PlatformError("signal", `daemon check: ${errorMessage(cause)}`, null, true);
      });
      await response.body?.cancel();
      if (!response.ok) throw new PlatformError("signal", `daemon check: HTTP ${response.status}`, response.status, response.status >= 500);
    });
    // the stream resumes from the cursor, which is in the workspace's store: it opens once the host does
    this.state = { ok: true, detail: `${this.account ?? "signal-cli"} connecting` };
    this.loop = this.receive(onMessage);
  }

  private async receive(onMessage: OnMessage): Promise<void> {
    const backoff = new Backoff(PLATFORM_BACKOFF);
    while (!this.stopper.signal.aborted) {
      try {
        await this.setup.waitForCapacity?.();
        const last = await this.setup.cursor.get();
        // one controller for the request and its stream: the head must come within the request time, the stream then
        // lasts until the channel stops (a fetch's signal aborts its body too, so no timeout signal goes in)
        const controller = new AbortController();
        const stop = () => controller.abort();
        this.stopper.signal.addEventListener("abort", stop, { once: true });
        const head = setTimeout(stop, this.limits.requestTimeoutMs);
        try {
          const response = await fetch(`${this.base}/api/v1/events`, {
            headers: { accept: "text/event-stream", ...(last ? { "last-event-id": last } : {}) },
            signal: controller.signal,
          }).catch((cause: unknown) => {
            throw new PlatformError("signal", `events: ${errorMessage(cause)}`, null, true);
          });
          clearTimeout(head);
          if (!response.ok || !response.body) throw new PlatformError("signal", `events: HTTP ${response.status}`, response.status, true);
          this.state = { ok: true, detail: `${this.account ?? "signal-cli"} receiving` };
          backoff.reset();
          await this.events(response.body, onMessage);
        } finally {
          clearTimeout(head);
          this.stopper.signal.removeEventListener("abort", stop);
        }
        throw new PlatformError("signal", "the event stream ended", null, true);
      } catch (error) {
        if (this.stopper.signal.aborted) return;
        const wait = backoff.next();
        this.state = { ok: false, detail: errorMessage(error) };
        this.setup.logger.warn(`Signal events failed, reconnecting in ${wait} ms: ${errorMessage(error)}`);
        await sleep(wait, this.stopper.signal).catch(() => undefined);
      }
    }
  }

  /** Each receive event stored, then its id kept as the cursor the next stream resumes after. */
  private async events(stream: ReadableStream<Uint8Array>, onMessage: OnMessage): Promise<void> {
    for await (const event of readSse(stream, PLATFORM_MAX_RESPONSE_BYTES)) {
      if (event.event !== "receive" && event.event !== "message") continue;
      let raw: unknown;
      try {
        raw = parseJsonBounded(event.data, "event");
      } catch {
        this.setup.logger.warn("Signal: skipped an event that is not JSON");
        continue;
      }
      const parsed = ReceiveSchema.safeParse(raw);
      if (!parsed.success) this.setup.logger.warn("Signal: skipped a malformed receive event");
      else {
        const message = normalizeSignal(this.name, parsed.data.envelope, this.account);
        if (message) await onMessage(message);
      }
      if (event.id !== null) await this.setup.cursor.set(event.id);
    }
  }

  private target(chatId: string): Record<string, unknown> {
    return chatId.startsWith(GROUP_PREFIX) ? { groupId: chatId.slice(GROUP_PREFIX.length) } : { recipient: [chatId] };
  }

  async send(reply: OutboundReply): Promise<string> {
    const sent = await this.retrying("send", () => this.rpc("send", { ...this.target(reply.chatId), message: reply.text }, SendResultSchema));
    return String(sent.timestamp);
  }

  /**
   * `send` with the file as a data URI (signal-cli takes `attachments` as paths or
   * `data:<MIME>;filename=<NAME>;base64,<DATA>`, https://github.com/AsamK/signal-cli/blob/master/man/signal-cli.1.adoc).
   */
  protected override async upload(target: ReplyTarget, attachment: OutboundAttachment): Promise<string> {
    const uri = `data:${attachment.mime};filename=${attachment.name.replace(/[;,]/g, "_")};base64,${Buffer.from(attachment.bytes).toString("base64")}`;
    const sent = await this.rpc("send", { ...this.target(target.chatId), message: "", attachments: [uri] }, SendResultSchema);
    return String(sent.timestamp);
  }

  override async typing(chatId: string): Promise<void> {
    await this.rpc("sendTyping", this.target(chatId), RpcAnswerSchema.shape.result);
  }

  /** An attachment's bytes through JSON-RPC getAttachment (base64), within `maxBytes`. */
  async fetchAttachment(attachment: InboundAttachment, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
    const both = AbortSignal.any([signal, this.stopper.signal, AbortSignal.timeout(ATTACHMENT_FETCH_TIMEOUT_MS)]);
    const got = await this.rpc("getAttachment", { id: attachment.ref }, GetAttachmentSchema, both);
    const bytes = Buffer.from(typeof got === "string" ? got : got.data, "base64");
    if (bytes.length > maxBytes) throw new PrxError("CHANNEL_RESPONSE_TOO_LARGE", `signal: attachment larger than ${maxBytes} bytes`);
    return new Uint8Array(bytes);
  }
}
