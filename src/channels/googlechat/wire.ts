/**
 * Google Chat as prx reads it: interaction events an HTTP endpoint app receives
 * (https://developers.google.com/workspace/chat/api/reference/rest/v1/Event and
 * https://developers.google.com/workspace/chat/receive-respond-interactions), the Message it creates
 * (https://developers.google.com/workspace/chat/api/reference/rest/v1/spaces.messages/create), the certificates that
 * sign the bearer token (https://developers.google.com/workspace/chat/verify-requests-from-chat), and a service
 * account's key and OAuth token (https://developers.google.com/identity/protocols/oauth2/service-account#httprest).
 * Unknown fields are kept out of the way (loose objects).
 */
import { z } from "zod";

export const GoogleChatUserSchema = z.looseObject({
  /** users/{id} */
  name: z.string().min(1).max(256),
  displayName: z.string().max(256).optional(),
  /** HUMAN or BOT */
  type: z.string().optional(),
});

/** A space's resource name: spaces/{id}. */
export const SPACE_NAME = /^spaces\/[\w-]{1,128}$/;

export const GoogleChatSpaceSchema = z.looseObject({
  name: z.string().regex(SPACE_NAME),
  /** Deprecated but still sent: DM or ROOM. */
  type: z.string().optional(),
  /** DIRECT_MESSAGE, GROUP_CHAT or SPACE. */
  spaceType: z.string().optional(),
  singleUserBotDm: z.boolean().optional(),
  displayName: z.string().optional(),
});

export const GoogleChatMessageSchema = z.looseObject({
  /** spaces/{space}/messages/{message} */
  name: z.string().min(1).max(256),
  sender: GoogleChatUserSchema,
  createTime: z.string().optional(),
  text: z.string().optional(),
  /** The text without the app's @-mention. */
  argumentText: z.string().optional(),
  annotations: z
    .array(z.looseObject({ type: z.string(), userMention: z.looseObject({ user: GoogleChatUserSchema, type: z.string().optional() }).optional() }))
    .optional(),
  thread: z.looseObject({ name: z.string().min(1).max(256) }).optional(),
  space: GoogleChatSpaceSchema.optional(),
  slashCommand: z.looseObject({ commandId: z.union([z.string(), z.number()]) }).optional(),
  attachment: z
    .array(
      z.looseObject({
        name: z.string().optional(),
        contentName: z.string().optional(),
        contentType: z.string().optional(),
        /** Uploaded content: fetched with the media API by this resource name. */
        attachmentDataRef: z.looseObject({ resourceName: z.string().min(1).max(2048).optional() }).optional(),
        source: z.string().optional(),
      }),
    )
    .optional(),
});
export type GoogleChatMessage = z.infer<typeof GoogleChatMessageSchema>;

export const GoogleChatEventSchema = z.looseObject({
  /** MESSAGE, ADDED_TO_SPACE, REMOVED_FROM_SPACE, CARD_CLICKED... */
  type: z.string(),
  eventTime: z.string().optional(),
  message: GoogleChatMessageSchema.optional(),
  user: GoogleChatUserSchema.optional(),
  space: GoogleChatSpaceSchema.optional(),
});
export type GoogleChatEvent = z.infer<typeof GoogleChatEventSchema>;

export const GoogleChatCreatedSchema = z.looseObject({ name: z.string() });

/** Google's signing certificates: key id -> PEM X.509 certificate. */
export const GoogleCertsSchema = z.record(z.string(), z.string().startsWith("-----BEGIN CERTIFICATE-----"));

export const ServiceAccountKeySchema = z.looseObject({
  type: z.literal("service_account"),
  client_email: z.email(),
  private_key: z.string().startsWith("-----BEGIN PRIVATE KEY-----"),
  private_key_id: z.string().optional(),
  token_uri: z.url().optional(),
  project_id: z.string().optional(),
});
export type ServiceAccountKey = z.infer<typeof ServiceAccountKeySchema>;

export const GoogleTokenSchema = z.looseObject({ access_token: z.string().min(1), expires_in: z.number(), token_type: z.string().optional() });
export const GoogleTokenErrorSchema = z.looseObject({ error: z.string(), error_description: z.string().optional() });
export const GoogleApiErrorSchema = z.looseObject({ error: z.looseObject({ code: z.number().optional(), message: z.string(), status: z.string().optional() }) });

/** The issuer of the project-number audience's JWT, and the account an endpoint-URL ID token is issued for. */
export const GOOGLE_CHAT_ISSUER = "chat@system.gserviceaccount.com";
export const GOOGLE_CHAT_CERTS_URL = `https://www.googleapis.com/service_accounts/v1/metadata/x509/${GOOGLE_CHAT_ISSUER}`;
/** Google's OIDC signing keys as PEM certificates (the ID tokens of the endpoint-URL audience). */
export const GOOGLE_OIDC_CERTS_URL = "https://www.googleapis.com/oauth2/v1/certs";
export const GOOGLE_OIDC_ISSUERS = ["https://accounts.google.com", "accounts.google.com"];
export const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";
export const GOOGLE_CHAT_SCOPE = "https://www.googleapis.com/auth/chat.bot";
export const GOOGLE_CHAT_API = "https://chat.googleapis.com";
