/**
 * The Discord shapes prx reads. Gateway payloads and opcodes: https://discord.com/developers/docs/events/gateway and
 * https://discord.com/developers/docs/topics/opcodes-and-status-codes; READY and MESSAGE_CREATE:
 * https://discord.com/developers/docs/events/gateway-events; Get Gateway Bot:
 * https://discord.com/developers/docs/events/gateway#get-gateway-bot; the message object and Create Message:
 * https://discord.com/developers/docs/resources/message; rate limits: https://discord.com/developers/docs/topics/rate-limits.
 */
import { z } from "zod";

export const GatewayOp = { DISPATCH: 0, HEARTBEAT: 1, IDENTIFY: 2, RESUME: 6, RECONNECT: 7, INVALID_SESSION: 9, HELLO: 10, HEARTBEAT_ACK: 11 } as const;

/** GUILDS | GUILD_MESSAGES | DIRECT_MESSAGES | MESSAGE_CONTENT (privileged: enable it in the developer portal). */
export const DISCORD_INTENTS = (1 << 0) | (1 << 9) | (1 << 12) | (1 << 15);

/** Close codes after which reconnecting cannot help (authentication failed, bad intents, ...). */
export const FATAL_CLOSE_CODES = new Set([4004, 4010, 4011, 4012, 4013, 4014]);

export const GatewayPayloadSchema = z.looseObject({
  op: z.number().int(),
  d: z.unknown().optional(),
  s: z.number().int().nullable().optional(),
  t: z.string().nullable().optional(),
});
export const HelloSchema = z.looseObject({ heartbeat_interval: z.number().positive() });
export const ReadySchema = z.looseObject({
  session_id: z.string(),
  resume_gateway_url: z.string(),
  user: z.looseObject({ id: z.string(), username: z.string().optional() }),
});
export const DiscordUserSchema = z.looseObject({ id: z.string(), username: z.string(), global_name: z.string().nullable().optional(), bot: z.boolean().optional() });
export const MessageCreateSchema = z.looseObject({
  id: z.string(),
  channel_id: z.string(),
  guild_id: z.string().optional(),
  author: DiscordUserSchema,
  content: z.string(),
  timestamp: z.string(),
  mentions: z.array(z.looseObject({ id: z.string() })).default([]),
  referenced_message: z.looseObject({ author: z.looseObject({ id: z.string() }).optional() }).nullable().optional(),
  /** https://discord.com/developers/docs/resources/message#attachment-object (a voice message is audio/ogg with duration_secs). */
  attachments: z
    .array(
      z.looseObject({
        id: z.string(),
        filename: z.string(),
        content_type: z.string().optional(),
        size: z.number().int(),
        url: z.string(),
        duration_secs: z.number().optional(),
      }),
    )
    .default([]),
});
export const GatewayBotSchema = z.looseObject({ url: z.string() });
export const CreatedMessageSchema = z.looseObject({ id: z.string() });
export const RateLimitBodySchema = z.looseObject({ retry_after: z.number(), global: z.boolean().optional() });

export type MessageCreate = z.infer<typeof MessageCreateSchema>;
