import type { z } from "zod";
import { CHANNEL_MAX_ATTACHMENTS } from "../limits.ts";
import type { InboundAttachment, InboundMessage } from "../types.ts";
import { FileContentSchema, ImageContentSchema, PostContentSchema, TextContentSchema, type FeishuMessageEvent } from "./wire.ts";

/** An attachment's ref: the resource type of GET .../messages/{message_id}/resources/{file_key}?type=, the message and the key. */
export function resourceRef(type: "image" | "file", messageId: string, key: string): string {
  return `${type}:${messageId}:${key}`;
}

const RESOURCE_REF = /^(image|file):([\w-]{1,256}):([\w-]{1,512})$/;

/** The parts of a ref resourceRef() made, or undefined for anything else. */
export function parseResourceRef(ref: string): { type: string; messageId: string; key: string } | undefined {
  const m = RESOURCE_REF.exec(ref);
  return m ? { type: m[1]!, messageId: m[2]!, key: m[3]! } : undefined;
}

const IMAGE_FILE = /\.(png|jpe?g|gif|webp|bmp)$/i;
const AUDIO_FILE = /\.(opus|ogg|mp3|m4a|wav|aac|amr)$/i;

function content<T>(schema: z.ZodType<T>, raw: string): T | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The text and attachments of a message by its type; undefined for types prx does not read (stickers, cards, shares...). */
function read(event: FeishuMessageEvent, mention: (key: string) => string | undefined): { text: string; attachments: InboundAttachment[] } | undefined {
  const m = event.message;
  switch (m.message_type) {
    case "text": {
      const text = content(TextContentSchema, m.content)?.text;
      return text === undefined ? undefined : { text: text.replace(/@_user_\d+/g, (key) => mention(key) ?? key), attachments: [] };
    }
    case "image": {
      const image = content(ImageContentSchema, m.content);
      return image && { text: "", attachments: [{ kind: "image", ref: resourceRef("image", m.message_id, image.image_key) }] };
    }
    case "audio": {
      const audio = content(FileContentSchema, m.content);
      return audio && { text: "", attachments: [{ kind: "audio", ref: resourceRef("file", m.message_id, audio.file_key) }] };
    }
    case "file": {
      const file = content(FileContentSchema, m.content);
      if (!file) return undefined;
      const name = file.file_name ?? "file";
      const kind = IMAGE_FILE.test(name) ? "image" : AUDIO_FILE.test(name) ? "audio" : null;
      if (kind) return { text: "", attachments: [{ kind, ref: resourceRef("file", m.message_id, file.file_key) }] };
      return { text: `[a file was sent: ${name}; only images and audio are read]`, attachments: [] };
    }
    case "post": {
      const post = content(PostContentSchema, m.content);
      if (!post) return undefined;
      const attachments: InboundAttachment[] = [];
      const lines = post.content.map((paragraph) =>
        paragraph
          .map((element) => {
            if (element.tag === "img" && element.image_key) attachments.push({ kind: "image", ref: resourceRef("image", m.message_id, element.image_key) });
            if (element.tag === "at") return mention(element.user_id ?? "") ?? `@${element.user_name ?? element.user_id ?? ""}`;
            if (element.tag === "a") return element.href && element.text !== element.href ? `${element.text ?? ""} (${element.href})` : (element.text ?? "");
            return element.text ?? "";
          })
          .join(""),
      );
      return { text: [post.title, ...lines].filter((line) => line).join("\n"), attachments };
    }
    default:
      return undefined;
  }
}

/**
 * An `im.message.receive_v1` event -> the inbound shape (undefined for message types prx does not read). The bot's own
 * `@_user_N` placeholder is taken out of the text and makes the message a mention; other people's become `@name`.
 * A message in a topic thread carries the thread's root message id as its thread (replies go into it).
 */
export function normalizeFeishu(channel: string, event: FeishuMessageEvent, botOpenId: string | null): InboundMessage | undefined {
  const m = event.message;
  const sender = event.sender.sender_id.open_id;
  if (!sender) return undefined;
  const mentions = new Map((m.mentions ?? []).map((x) => [x.key, x] as const));
  let botMentioned = false;
  /** What a mention placeholder reads as: nothing for the bot, `@name` for others; undefined for an unknown key. */
  const mention = (key: string): string | undefined => {
    const who = mentions.get(key);
    if (!who) return undefined;
    if (botOpenId !== null && who.id.open_id === botOpenId) {
      botMentioned = true;
      return "";
    }
    return `@${who.name ?? who.id.open_id ?? key}`;
  };
  const got = read(event, mention);
  if (!got) return undefined;
  const dm = m.chat_type === "p2p";
  const attachments = got.attachments.slice(0, CHANNEL_MAX_ATTACHMENTS);
  return {
    id: m.message_id,
    channel,
    chatId: m.chat_id,
    chatKind: dm ? "dm" : "group",
    threadId: m.thread_id ? (m.root_id || m.message_id) : null,
    senderId: sender,
    senderDisplay: sender,
    senderIsBot: event.sender.sender_type !== undefined && event.sender.sender_type !== "user",
    text: got.text.trim(),
    replyTo: m.parent_id || null,
    mentioned: dm || botMentioned,
    timestamp: Number(m.create_time ?? "") || Date.now(),
    ...(attachments.length > 0 ? { attachments } : {}),
  };
}
