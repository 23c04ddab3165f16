import { z } from "zod";
import type { ChannelConfig, ChannelKind } from "../config/schema.ts";
import type { Logger } from "../core/logger.ts";
import { CHANNEL_MAX_ATTACHMENTS, INBOUND_ID_MAX_CHARS, type PlatformLimits } from "./limits.ts";

/**
 * An image or audio clip of an inbound message, as the platform names it (a file id or URL the adapter fetches when
 * the turn runs: the inbox keeps the reference, never the bytes). `bytes` and `seconds` as the platform reports them.
 */
export const InboundAttachmentSchema = z.strictObject({
  kind: z.enum(["image", "audio"]),
  ref: z.string().min(1).max(4096),
  bytes: z.number().int().nonnegative().optional(),
  seconds: z.number().nonnegative().optional(),
});
export type InboundAttachment = z.infer<typeof InboundAttachmentSchema>;

/**
 * One inbound message as every platform adapter hands it to the runner (parsed at the boundary). `id` is the
 * platform's own message id: processing is idempotent on (channel, id).
 */
export const InboundMessageSchema = z.strictObject({
  id: z.string().min(1).max(INBOUND_ID_MAX_CHARS),
  channel: z.string().min(1),
  chatId: z.string().min(1).max(INBOUND_ID_MAX_CHARS),
  chatKind: z.enum(["dm", "group", "thread"]),
  threadId: z.string().min(1).max(INBOUND_ID_MAX_CHARS).nullable(),
  senderId: z.string().min(1).max(INBOUND_ID_MAX_CHARS),
  senderDisplay: z.string().max(INBOUND_ID_MAX_CHARS),
  senderIsBot: z.boolean(),
  text: z.string(),
  replyTo: z.string().nullable(),
  /** The bot was @-mentioned or replied to. */
  mentioned: z.boolean(),
  /** Epoch milliseconds. */
  timestamp: z.number().int().nonnegative(),
  /** Photos, image files, voice notes and audio files of the message (its text is their caption). */
  attachments: z.array(InboundAttachmentSchema).max(CHANNEL_MAX_ATTACHMENTS).optional(),
});
export type InboundMessage = z.infer<typeof InboundMessageSchema>;

/** One reply part as sent to the platform (already split at its limit). */
export const OutboundReplySchema = z.strictObject({
  chatId: z.string().min(1),
  threadId: z.string().nullable(),
  /** The inbound message answered (platform id), for reply threading. */
  replyTo: z.string().nullable(),
  text: z.string().min(1),
});
export type OutboundReply = z.infer<typeof OutboundReplySchema>;

/** Where a reply goes: an outbound reply without its text. */
export type ReplyTarget = Omit<OutboundReply, "text">;

/**
 * A file a reply carries (a workspace file the answer links, read within CHANNEL_MAX_OUTBOUND_ATTACHMENT_BYTES):
 * `image` is sent as a picture where the platform shows pictures, `file` as a document.
 */
export const OutboundAttachmentSchema = z.strictObject({
  kind: z.enum(["image", "file"]),
  /** The file's name as the recipient sees it (no directory). */
  name: z.string().min(1).max(255),
  mime: z.string().min(1).max(255),
  bytes: z.instanceof(Uint8Array),
  /** Its path in the workspace (`out/chart.png`), for a platform that sends the bytes later (Teams' file consent). */
  path: z.string().min(1).optional(),
});
export type OutboundAttachment = z.infer<typeof OutboundAttachmentSchema>;

export interface ChannelCapabilities {
  /** The platform can edit a sent message. */
  edit: boolean;
  threads: boolean;
  /** Longest text one platform message may carry (characters as the platform counts them). */
  maxMessageLength: number;
  typing: boolean;
  /** The platform's adapter uploads files (sendAttachment); others get the file named in the text. */
  attachments?: boolean;
}

export interface ChannelHealth {
  ok: boolean;
  detail: string;
}

/**
 * What the runner does with a message: the platform adapter awaits it only to persist its own cursor (offset, since
 * token) once the message is stored, never the turn.
 */
export type OnMessage = (message: InboundMessage) => Promise<void>;

/** An HTTP request forwarded by the gateway to a channel that receives over HTTP (webhook, Slack Events, Telegram webhook). */
export interface ForwardedRequest {
  method: string;
  /** The query string with its "?" ("" when none): WhatsApp's GET handshake carries hub.* in it. */
  query?: string;
  headers: Record<string, string>;
  /** The raw body, exactly as received (signatures are computed over it). */
  body: string;
}

export interface ForwardedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A platform adapter: the only code that speaks the platform's wire protocol. */
export interface Channel {
  readonly name: string;
  readonly kind: ChannelKind;
  readonly capabilities: ChannelCapabilities;
  /** Connect and deliver messages until stop(); resolves once connected (or polling). */
  start(onMessage: OnMessage): Promise<void>;
  /** Send one part (the runner splits at capabilities.maxMessageLength). Returns the platform's message id. */
  send(reply: OutboundReply): Promise<string>;
  /** Send one file to the chat (capabilities.attachments), after the reply's text. Returns the platform's message id. */
  sendAttachment?(target: ReplyTarget, attachment: OutboundAttachment): Promise<string>;
  /** Show "typing…" once (platforms expire it after a few seconds; the runner repeats it while a turn runs). */
  typing(chatId: string, threadId: string | null): Promise<void>;
  health(): ChannelHealth;
  /** Inbound requests refused for a missing or forged signature (channels that receive over HTTP). */
  readonly rejected?: number;
  /** The bytes of an attachment this adapter named (within `maxBytes`); adapters without media leave it undefined. */
  fetchAttachment?(attachment: InboundAttachment, maxBytes: number, signal: AbortSignal): Promise<Uint8Array>;
  /**
   * The runner is done with a message: answered, refused, ignored, or failed for good (also when a message delivered
   * again turns out to be done). Platforms that hold a message until then (email's \Seen flag) let it go here.
   */
  settled?(message: InboundMessage): Promise<void>;
  /**
   * Check the configured credentials against the platform without receiving anything (`prx channel doctor`): what
   * the platform said of them, or a thrown error saying what is wrong. Platforms without such a call leave it undefined.
   */
  checkCredentials?(): Promise<string>;
  /** Channels that receive over HTTP answer a request the gateway forwarded; others leave it undefined. */
  handleHttp?(request: ForwardedRequest): Promise<ForwardedResponse>;
  stop(): Promise<void>;
}

/** What a platform adapter is built from. */
export interface ChannelSetup {
  name: string;
  config: ChannelConfig;
  env: Record<string, string | undefined>;
  logger: Logger;
  /** Persisted cursor of the platform (Telegram offset, Matrix since token); null before the first. */
  cursor: { get(): string | null | Promise<string | null>; set(value: string): void | Promise<void> };
  /** Whether an invitation from this sender may be accepted (Matrix auto-join): allowed, paired, or policy permits. */
  mayInvite?: (senderId: string) => boolean | Promise<boolean>;
  /** Resolves when the runner can take more messages (adapters stop reading the platform meanwhile). */
  waitForCapacity?: () => Promise<void>;
  /** When a reply must be delivered in an HTTP response (webhook channel): resolves with the reply parts. */
  awaitReply?: (messageId: string) => Promise<string[]>;
  /** Shorter platform time limits for tests; each defaults to its constant in limits.ts. */
  limits?: Partial<PlatformLimits>;
  /**
   * The workspace whose files the adapter may send later, when the platform asks for them (Teams uploads a file once
   * the user accepts it); read under the rules of reply files (reply-files.ts).
   */
  workspace?: string;
  /** The clock of an adapter's own time limits (epoch ms; tests move it); Date.now by default. */
  clock?: () => number;
}

export type ChannelFactory = (setup: ChannelSetup) => Channel;
