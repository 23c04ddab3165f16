import { z } from "zod";
import { SESSION_ID_PATTERN } from "../core/session-id.ts";

/** Name of a message_send target as the model refers to it (`[tools.message_send.targets.<name>]`). */
export const MESSAGE_TARGET_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** A chat on a configured channel: `[channels.<channel>]` and the platform's chat id (and thread). */
const ChannelTargetSchema = z.strictObject({
  channel: z.string().min(1).describe("a [channels.<name>] of this config"),
  chat: z.string().min(1).max(256).describe("the platform's chat id (Telegram chat_id, Slack channel id, Discord channel id, Matrix room id)"),
  thread: z.string().min(1).max(256).optional().describe("a thread or topic of that chat"),
});

/** Another prx session: the message is added to it as the assistant's. */
const SessionTargetSchema = z.strictObject({
  session: z.string().regex(SESSION_ID_PATTERN, "a session id (letters, digits, . _ : @ -)").describe("a session id"),
});

/** [tools.message_send]: the places message_send may write to, by name; without targets the tool is not offered. */
export const MessageSendSchema = z.strictObject({
  targets: z
    .record(z.string().regex(MESSAGE_TARGET_NAME_PATTERN, "a target name: letters, digits, _ and -, at most 64"), z.union([ChannelTargetSchema, SessionTargetSchema]))
    .default({})
    .describe('named targets: { me = { channel = "telegram", chat = "12345" }, desk = { session = "console-main" } }'),
});

/** [tools.delegate]: sub-tasks run as helper turns in child sessions. */
export const DelegateSchema = z.strictObject({
  max_depth: z
    .number()
    .int()
    .min(0)
    .max(5)
    .default(2)
    .describe("how many levels of sub-tasks may be nested (a helper's helper is depth 2); 0 turns delegate off"),
});

export type MessageSendConfig = z.infer<typeof MessageSendSchema>;
export type MessageTarget = MessageSendConfig["targets"][string];
export type DelegateConfig = z.infer<typeof DelegateSchema>;
