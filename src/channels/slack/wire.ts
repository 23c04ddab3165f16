/**
 * The Slack shapes prx reads. Web API envelope: https://api.slack.com/web#responses ({ok, error}); auth.test:
 * https://api.slack.com/methods/auth.test; apps.connections.open: https://api.slack.com/methods/apps.connections.open;
 * chat.postMessage: https://api.slack.com/methods/chat.postMessage. Socket Mode envelopes (hello, events_api,
 * disconnect) and the ack `{envelope_id}`: https://api.slack.com/apis/socket-mode. Events API (url_verification,
 * event_callback): https://api.slack.com/apis/events-api. The message event: https://api.slack.com/events/message.
 */
import { z } from "zod";

export const SlackEnvelopeSchema = z.looseObject({ ok: z.boolean(), error: z.string().optional() });
export const SlackAuthSchema = z.looseObject({ ok: z.literal(true), user_id: z.string(), bot_id: z.string().optional(), user: z.string().optional(), team: z.string().optional() });
export const SlackConnectionSchema = z.looseObject({ ok: z.literal(true), url: z.string() });
/** https://api.slack.com/methods/files.getUploadURLExternal */
export const SlackUploadUrlSchema = z.looseObject({ ok: z.literal(true), upload_url: z.string().url(), file_id: z.string() });
/** https://api.slack.com/methods/files.completeUploadExternal */
export const SlackUploadedSchema = z.looseObject({ ok: z.literal(true), files: z.array(z.looseObject({ id: z.string() })).min(1) });

export const SlackPostedSchema = z.looseObject({ ok: z.literal(true), ts: z.string(), channel: z.string() });

export const SlackMessageEventSchema = z.looseObject({
  type: z.enum(["message", "app_mention"]),
  subtype: z.string().optional(),
  channel: z.string(),
  channel_type: z.string().optional(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  text: z.string().optional(),
  ts: z.string(),
  thread_ts: z.string().optional(),
  /** https://api.slack.com/types/file: shared files; their bytes at url_private(_download), with the bot token. */
  files: z
    .array(
      z.looseObject({
        id: z.string(),
        mimetype: z.string().optional(),
        size: z.number().int().optional(),
        url_private: z.string().optional(),
        url_private_download: z.string().optional(),
      }),
    )
    .optional(),
});
export type SlackMessageEvent = z.infer<typeof SlackMessageEventSchema>;

export const SlackEventCallbackSchema = z.looseObject({
  type: z.literal("event_callback"),
  event_id: z.string().optional(),
  event: z.looseObject({ type: z.string() }),
});
export const SlackUrlVerificationSchema = z.looseObject({ type: z.literal("url_verification"), challenge: z.string() });

/** One Socket Mode frame from Slack. */
export const SlackSocketFrameSchema = z.union([
  z.looseObject({ type: z.literal("hello") }),
  z.looseObject({ type: z.literal("disconnect"), reason: z.string().optional() }),
  z.looseObject({ type: z.literal("events_api"), envelope_id: z.string(), payload: z.unknown() }),
  z.looseObject({ type: z.string(), envelope_id: z.string().optional() }),
]);

export const SLACK_SIGNATURE_HEADER = "x-slack-signature";
export const SLACK_TIMESTAMP_HEADER = "x-slack-request-timestamp";
