/**
 * The Telegram Bot API shapes prx reads (https://core.telegram.org/bots/api#available-types, #getting-updates).
 * Objects are loose: Telegram adds fields over time, and an update of a kind prx does not handle is skipped, not an error.
 */
import { z } from "zod";

export const TelegramUserSchema = z.looseObject({
  id: z.number().int(),
  is_bot: z.boolean(),
  first_name: z.string(),
  last_name: z.string().optional(),
  username: z.string().optional(),
});

export const TelegramChatSchema = z.looseObject({
  id: z.number().int(),
  type: z.enum(["private", "group", "supergroup", "channel"]),
  title: z.string().optional(),
});

export const TelegramEntitySchema = z.looseObject({
  type: z.string(),
  offset: z.number().int(),
  length: z.number().int(),
  user: TelegramUserSchema.optional(),
});

/** https://core.telegram.org/bots/api#photosize: one size of a photo (a message's `photo` lists them, smallest first). */
export const TelegramPhotoSizeSchema = z.looseObject({
  file_id: z.string(),
  file_unique_id: z.string().optional(),
  width: z.number().int(),
  height: z.number().int(),
  file_size: z.number().int().optional(),
});

/** Voice (#voice), Audio (#audio) and Document (#document): a file id, with what Telegram knows of the file. */
export const TelegramFileRefSchema = z.looseObject({
  file_id: z.string(),
  file_unique_id: z.string().optional(),
  duration: z.number().optional(),
  mime_type: z.string().optional(),
  file_name: z.string().optional(),
  file_size: z.number().int().optional(),
});

/** https://core.telegram.org/bots/api#file: getFile's answer; the bytes are at <api>/file/bot<token>/<file_path>. */
export const TelegramFileSchema = z.looseObject({
  file_id: z.string(),
  file_unique_id: z.string().optional(),
  file_size: z.number().int().optional(),
  file_path: z.string().optional(),
});

export const TelegramMessageSchema = z.looseObject({
  message_id: z.number().int(),
  message_thread_id: z.number().int().optional(),
  is_topic_message: z.boolean().optional(),
  from: TelegramUserSchema.optional(),
  chat: TelegramChatSchema,
  date: z.number().int(),
  text: z.string().optional(),
  caption: z.string().optional(),
  entities: z.array(TelegramEntitySchema).optional(),
  caption_entities: z.array(TelegramEntitySchema).optional(),
  photo: z.array(TelegramPhotoSizeSchema).optional(),
  voice: TelegramFileRefSchema.optional(),
  audio: TelegramFileRefSchema.optional(),
  document: TelegramFileRefSchema.optional(),
  reply_to_message: z
    .looseObject({ message_id: z.number().int(), from: TelegramUserSchema.optional() })
    .optional(),
});

/** One update: only `message` is handled; the rest (edited_message, callback_query, ...) is logged and skipped. */
export const TelegramUpdateSchema = z.looseObject({
  update_id: z.number().int(),
  message: TelegramMessageSchema.optional(),
});

/** https://core.telegram.org/bots/api#making-requests: every answer is this envelope. */
export const TelegramEnvelopeSchema = z.union([
  z.looseObject({ ok: z.literal(true), result: z.unknown() }),
  z.looseObject({
    ok: z.literal(false),
    error_code: z.number().int(),
    description: z.string(),
    parameters: z.looseObject({ retry_after: z.number().optional(), migrate_to_chat_id: z.number().optional() }).optional(),
  }),
]);

export const TelegramSentSchema = z.looseObject({ message_id: z.number().int() });
/** getUpdates: each update is parsed on its own (a malformed one is skipped, not the batch). */
export const TelegramUpdatesSchema = z.array(z.unknown());
/** Answers prx does not read (sendChatAction's `true`). */
export const TelegramAnyResultSchema = z.unknown();

export type TelegramUser = z.infer<typeof TelegramUserSchema>;
export type TelegramMessage = z.infer<typeof TelegramMessageSchema>;
export type TelegramUpdate = z.infer<typeof TelegramUpdateSchema>;
export type TelegramEnvelope = z.infer<typeof TelegramEnvelopeSchema>;

/** Header Telegram sends with every webhook request when setWebhook was given a secret_token. */
export const TELEGRAM_SECRET_HEADER = "x-telegram-bot-api-secret-token";
