/**
 * The Feishu / Lark Open Platform as prx reads it (Feishu and Lark are one API on two hosts):
 * - event subscription v2.0 sent to a request URL (https://open.feishu.cn/document/ukTMukTMukTM/uYDNxYjL2QTM24iN0EjN/event-subscription-configure-/encrypt-key-encryption-configuration-case):
 *   the url_verification challenge, `{"encrypt": ...}` bodies when an Encrypt Key is set, and the envelope
 *   `{schema: "2.0", header, event}`;
 * - `im.message.receive_v1` (https://open.feishu.cn/document/uAjLw4CM/ukTMukTMukTM/reference/im-v1/message/events/receive);
 * - the answers of the tenant_access_token (https://open.feishu.cn/document/ukTMukTMukTM/ukDNz4SO0MjL5QzM/auth-v3/auth/tenant_access_token_internal),
 *   bot info (https://open.feishu.cn/document/ukTMukTMukTM/uAjMxEjLwITMx4CMyETM), message reply and create
 *   (https://open.feishu.cn/document/uAjLw4CM/ukTMukTMukTM/reference/im-v1/message/reply, .../message/create) calls, all
 *   `{code, msg, ...}` with code 0 for success.
 * Unknown fields are kept out of the way (loose objects): the platform adds fields without a schema bump.
 */
import { z } from "zod";

export const FEISHU_DEFAULT_API = "https://open.feishu.cn";
export const LARK_SIGNATURE_HEADER = "x-lark-signature";
export const LARK_TIMESTAMP_HEADER = "x-lark-request-timestamp";
export const LARK_NONCE_HEADER = "x-lark-request-nonce";

export const TOKEN_PATH = "/open-apis/auth/v3/tenant_access_token/internal";
export const BOT_INFO_PATH = "/open-apis/bot/v3/info";
export const MESSAGES_PATH = "/open-apis/im/v1/messages";

/** "request trigger frequency limit" (https://open.feishu.cn/document/server-docs/api-call-guide/frequency-control): HTTP 429, or 400 on older APIs. */
export const FEISHU_RATE_LIMITED = 99991400;
/** The tenant_access_token is invalid or expired (https://open.feishu.cn/document/server-docs/api-call-guide/generic-error-code): fetch another. */
export const FEISHU_TOKEN_INVALID = 99991663;

/** A reply to a message its sender withdrew (https://open.feishu.cn/document/uAjLw4CM/ukTMukTMukTM/reference/im-v1/message/reply, error codes). */
export const FEISHU_MESSAGE_WITHDRAWN = 230011;

/** Every answer: code 0 is success, anything else names the error in msg. */
export const EnvelopeSchema = z.looseObject({ code: z.number(), msg: z.string().optional() });

export const TokenAnswerSchema = z.looseObject({ tenant_access_token: z.string().min(1), expire: z.number().int().positive() });

export const BotInfoSchema = z.looseObject({
  bot: z.looseObject({ open_id: z.string().min(1), app_name: z.string().optional() }),
});

export const SentSchema = z.looseObject({ data: z.looseObject({ message_id: z.string().min(1) }) });

/** The body when an Encrypt Key is set: base64 of a 16-byte IV and the AES-256-CBC ciphertext. */
export const EncryptedSchema = z.looseObject({ encrypt: z.string().min(1) });

export const UrlVerificationSchema = z.looseObject({ type: z.literal("url_verification"), challenge: z.string().max(1024), token: z.string().optional() });

export const EventEnvelopeSchema = z.looseObject({
  schema: z.literal("2.0"),
  header: z.looseObject({
    event_id: z.string().min(1).max(256),
    event_type: z.string(),
    create_time: z.string().optional(),
    token: z.string().optional(),
    app_id: z.string().optional(),
  }),
  event: z.unknown(),
});

const UserIdSchema = z.looseObject({ open_id: z.string().min(1).max(256).optional(), user_id: z.string().optional(), union_id: z.string().optional() });

export const MentionSchema = z.looseObject({ key: z.string(), id: UserIdSchema, name: z.string().max(256).optional() });

export const MessageEventSchema = z.looseObject({
  sender: z.looseObject({ sender_id: UserIdSchema, sender_type: z.string().optional() }),
  message: z.looseObject({
    message_id: z.string().min(1).max(256),
    root_id: z.string().max(256).optional(),
    parent_id: z.string().max(256).optional(),
    thread_id: z.string().max(256).optional(),
    /** Milliseconds, as text. */
    create_time: z.string().regex(/^\d{1,15}$/).optional(),
    chat_id: z.string().min(1).max(256),
    chat_type: z.string(),
    message_type: z.string().max(64),
    /** A JSON string whose shape depends on message_type. */
    content: z.string(),
    mentions: z.array(MentionSchema).optional(),
  }),
});
export type FeishuMessageEvent = z.infer<typeof MessageEventSchema>;

/** Contents by message_type (https://open.feishu.cn/document/uAjLw4CM/ukTMukTMukTM/im-v1/message/events/message_content). */
export const TextContentSchema = z.looseObject({ text: z.string() });
export const ImageContentSchema = z.looseObject({ image_key: z.string().min(1).max(512) });
export const FileContentSchema = z.looseObject({ file_key: z.string().min(1).max(512), file_name: z.string().max(1024).optional() });
/** Rich text: paragraphs of elements (text, a, at, img...). */
export const PostContentSchema = z.looseObject({
  title: z.string().optional(),
  content: z.array(z.array(z.looseObject({ tag: z.string(), text: z.string().optional(), href: z.string().optional(), user_id: z.string().optional(), user_name: z.string().optional(), image_key: z.string().optional() }))),
});
