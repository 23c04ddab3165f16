/**
 * The LINE Messaging API as prx reads it (https://developers.line.biz/en/reference/messaging-api/): webhook bodies
 * and their message events (#webhook-event-objects, #message-event), the answers of the reply and push APIs
 * (#send-reply-message, #send-push-message), the bot's own info (#get-bot-info), a user's profile (#get-profile) and its errors (#error-responses).
 * Unknown fields are kept out of the way (loose objects): LINE adds fields without a version bump.
 */
import { z } from "zod";

export const LINE_SIGNATURE_HEADER = "x-line-signature";
/** Makes a push idempotent: the same key within 24 hours is accepted once (#retry-api-request). */
export const LINE_RETRY_KEY_HEADER = "x-line-retry-key";

export const LineSourceSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("user"), userId: z.string().min(1).max(64) }),
  z.looseObject({ type: z.literal("group"), groupId: z.string().min(1).max(64), userId: z.string().min(1).max(64).optional() }),
  z.looseObject({ type: z.literal("room"), roomId: z.string().min(1).max(64), userId: z.string().min(1).max(64).optional() }),
]);
export type LineSource = z.infer<typeof LineSourceSchema>;

export const LineMessageSchema = z.looseObject({
  id: z.string().regex(/^\d{1,32}$/),
  type: z.string().max(32),
  text: z.string().optional(),
  /** Who a text mentions: `isSelf` marks the bot (#wh-text). */
  mention: z
    .looseObject({
      mentionees: z.array(z.looseObject({ index: z.number().int().nonnegative(), length: z.number().int().nonnegative(), type: z.string(), userId: z.string().optional(), isSelf: z.boolean().optional() })),
    })
    .optional(),
  /** Images, video and audio: "line" when the content is on LINE's servers (#wh-image). */
  contentProvider: z.looseObject({ type: z.string() }).optional(),
  fileName: z.string().max(1024).optional(),
  fileSize: z.number().optional(),
  quotedMessageId: z.string().optional(),
});
export type LineMessage = z.infer<typeof LineMessageSchema>;

export const LineEventSchema = z.looseObject({
  type: z.string(),
  /** "standby": another channel of a module answers this chat; the bot must not reply. */
  mode: z.string().optional(),
  timestamp: z.number().int().nonnegative(),
  source: LineSourceSchema.optional(),
  webhookEventId: z.string().min(1).max(64),
  deliveryContext: z.looseObject({ isRedelivery: z.boolean() }),
  replyToken: z.string().min(1).max(256).optional(),
  message: z.unknown().optional(),
});
export type LineEvent = z.infer<typeof LineEventSchema>;

export const LineWebhookSchema = z.looseObject({
  /** The bot's user id. */
  destination: z.string(),
  /** Each parsed on its own: one odd event does not drop the others. Empty for the console's "Verify". */
  events: z.array(z.unknown()),
});

export const LineSentSchema = z.looseObject({ sentMessages: z.array(z.looseObject({ id: z.string() })).optional() });

export const LineProfileSchema = z.looseObject({ userId: z.string(), displayName: z.string() });

export const LineBotInfoSchema = z.looseObject({ userId: z.string(), basicId: z.string().optional(), displayName: z.string().optional() });

export const LineErrorSchema = z.looseObject({ message: z.string(), details: z.array(z.looseObject({ message: z.string().optional(), property: z.string().optional() })).optional() });

/** The reply API's answer to a token that was used, expired or never issued. */
export const LINE_INVALID_REPLY_TOKEN = "Invalid reply token";
