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

/** The issuer of tokens the Bot Framework service signs. */
export const BOT_FRAMEWORK_ISSUER = "https://api.botframework.com";
export const BOT_FRAMEWORK_OPENID = "https://login.botframework.com/v1/.well-known/openidconfiguration";
export const BOT_FRAMEWORK_SCOPE = "https://api.botframework.com/.default";
