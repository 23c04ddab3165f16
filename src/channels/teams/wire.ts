/**
 * The Bot Framework as prx reads it: activities (https://learn.microsoft.com/azure/bot-service/rest-api/bot-framework-rest-connector-api-reference#activity-object),
 * the OpenID metadata and JWKS that sign inbound requests and the client-credentials token of replies
 * (https://learn.microsoft.com/azure/bot-service/rest-api/bot-framework-rest-connector-authentication).
 */
import { z } from "zod";

const AccountSchema = z.looseObject({ id: z.string().min(1).max(256), name: z.string().max(256).optional(), aadObjectId: z.string().optional() });

export const ActivitySchema = z.looseObject({
  type: z.string(),
  id: z.string().min(1).max(256),
  timestamp: z.string().optional(),
  serviceUrl: z.url(),
  channelId: z.string().optional(),
  from: AccountSchema,
  conversation: z.looseObject({ id: z.string().min(1).max(1024), conversationType: z.string().optional(), isGroup: z.boolean().optional() }),
  recipient: AccountSchema,
  text: z.string().optional(),
  replyToId: z.string().optional(),
  entities: z.array(z.looseObject({ type: z.string(), mentioned: AccountSchema.optional(), text: z.string().optional() })).optional(),
  attachments: z.array(z.looseObject({ contentType: z.string(), contentUrl: z.string().optional(), name: z.string().optional() })).optional(),
  /** An invoke activity's name (`fileConsent/invoke`) and value. */
  name: z.string().optional(),
  value: z.unknown().optional(),
});
export type Activity = z.infer<typeof ActivitySchema>;

export const OpenIdMetadataSchema = z.looseObject({ issuer: z.string(), jwks_uri: z.url() });

export const JwkSchema = z.looseObject({
  kty: z.literal("RSA"),
  kid: z.string(),
  n: z.string(),
  e: z.string(),
  /** The channels a key may sign for ("msteams", ...). */
  endorsements: z.array(z.string()).optional(),
});
export const JwksSchema = z.looseObject({ keys: z.array(z.unknown()) });

export const TokenSchema = z.looseObject({ token_type: z.string(), expires_in: z.number(), access_token: z.string().min(1) });

export const ResourceResponseSchema = z.looseObject({ id: z.string().optional() });

/**
 * Files through the Teams bot APIs, personal chats only (https://learn.microsoft.com/microsoftteams/platform/bots/how-to/bots-filesv4):
 * a FileConsentCard asks the user; their answer is a `fileConsent/invoke` activity whose value carries the card's
 * accept or decline context and, on accept, where to PUT the bytes; a FileInfoCard then shows the uploaded file.
 */
export const FILE_CONSENT_CARD = "application/vnd.microsoft.teams.card.file.consent";
export const FILE_INFO_CARD = "application/vnd.microsoft.teams.card.file.info";
export const FILE_CONSENT_INVOKE = "fileConsent/invoke";

export const FileConsentValueSchema = z.looseObject({
  type: z.literal("fileUpload"),
  action: z.enum(["accept", "decline"]),
  context: z.unknown().optional(),
  uploadInfo: z
    .looseObject({ contentUrl: z.string(), name: z.string().min(1).max(255), uploadUrl: z.url(), uniqueId: z.string(), fileType: z.string() })
    .optional(),
});

/** prx's own accept context of a consent card: the workspace file offered, signed for the conversation. */
export const ConsentContextSchema = z.strictObject({ file: z.string().min(1).max(4096), mac: z.string().min(1).max(128) });

/** The issuer of tokens the Bot Framework service signs. */
export const BOT_FRAMEWORK_ISSUER = "https://api.botframework.com";
export const BOT_FRAMEWORK_OPENID = "https://login.botframework.com/v1/.well-known/openidconfiguration";
export const BOT_FRAMEWORK_SCOPE = "https://api.botframework.com/.default";
