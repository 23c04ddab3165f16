/**
 * The WhatsApp Business Cloud API as prx reads it: webhook notifications
 * (https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/components and .../payload-examples), the send
 * answer of POST /{version}/{phone_number_id}/messages, media metadata of GET /{version}/{media-id}, and Graph errors
 * (https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes). Unknown fields are kept out of the
 * way (loose objects): Meta adds fields without a version bump.
 */
import { z } from "zod";

/** The GET handshake (https://developers.facebook.com/docs/graph-api/webhooks/getting-started#verification-requests). */
export const WHATSAPP_SIGNATURE_HEADER = "x-hub-signature-256";

const MediaSchema = z.looseObject({
  id: z.string().min(1).max(256),
  mime_type: z.string().max(256).optional(),
  caption: z.string().optional(),
  filename: z.string().max(1024).optional(),
  voice: z.boolean().optional(),
});

export const WhatsAppMessageSchema = z.looseObject({
  from: z.string().min(1).max(64),
  id: z.string().min(1).max(256),
  /** Unix seconds, as text. */
  timestamp: z.string().regex(/^\d{1,12}$/),
  type: z.string().max(64),
  text: z.looseObject({ body: z.string() }).optional(),
  image: MediaSchema.optional(),
  audio: MediaSchema.optional(),
  document: MediaSchema.optional(),
  interactive: z
    .looseObject({
      type: z.string(),
      button_reply: z.looseObject({ id: z.string(), title: z.string() }).optional(),
      list_reply: z.looseObject({ id: z.string(), title: z.string(), description: z.string().optional() }).optional(),
    })
    .optional(),
  /** A template's quick-reply button. */
  button: z.looseObject({ text: z.string(), payload: z.string().optional() }).optional(),
  context: z.looseObject({ id: z.string().optional(), from: z.string().optional() }).optional(),
});
export type WhatsAppMessage = z.infer<typeof WhatsAppMessageSchema>;

export const WhatsAppChangeValueSchema = z.looseObject({
  messaging_product: z.literal("whatsapp").optional(),
  metadata: z.looseObject({ phone_number_id: z.string(), display_phone_number: z.string().optional() }).optional(),
  contacts: z.array(z.looseObject({ wa_id: z.string(), profile: z.looseObject({ name: z.string() }).optional() })).optional(),
  /** Each element parsed on its own: one odd message does not drop the others. */
  messages: z.array(z.unknown()).optional(),
  statuses: z.array(z.unknown()).optional(),
});

export const WhatsAppNotificationSchema = z.looseObject({
  object: z.string(),
  entry: z.array(
    z.looseObject({
      id: z.string(),
      changes: z.array(z.looseObject({ field: z.string(), value: z.unknown() })),
    }),
  ),
});

/** https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media#upload-media: `{id}`. */
export const WhatsAppUploadedSchema = z.looseObject({ id: z.string().min(1) });

export const WhatsAppSentSchema = z.looseObject({
  messaging_product: z.literal("whatsapp"),
  messages: z.array(z.looseObject({ id: z.string().min(1) })).min(1),
});

export const WhatsAppMediaSchema = z.looseObject({
  url: z.url(),
  mime_type: z.string().optional(),
  file_size: z.number().optional(),
  id: z.string(),
});

export const WhatsAppPhoneNumberSchema = z.looseObject({
  id: z.string(),
  display_phone_number: z.string().optional(),
  verified_name: z.string().optional(),
});

export const GraphErrorSchema = z.looseObject({
  error: z.looseObject({ message: z.string(), code: z.number().optional(), type: z.string().optional(), error_subcode: z.number().optional() }),
});

/** "Re-engagement message": more than 24 hours since the user last wrote; only a template may be sent. */
export const GRAPH_OUTSIDE_WINDOW = 131047;
/** Throughput and rate limits (https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes#throttling-errors). */
export const GRAPH_RATE_LIMITED = new Set([4, 80007, 130429, 131056]);
