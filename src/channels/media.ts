import type { MediaRef } from "../contracts/chat.ts";
import { errorMessage } from "../core/errors.ts";
import { audioFromBytes, imageFromBytes } from "../media/ingest.ts";
import { AUDIO_MAX_BYTES, IMAGE_MAX_BYTES } from "../media/limits.ts";
import type { Channel, InboundMessage } from "./types.ts";

/** What a message's attachments become in its turn: media refs with their bytes, and notes for those that failed. */
export interface InboundMedia {
  media: MediaRef[];
  notes: string[];
}

/**
 * The message's attachments fetched from the platform and checked (type from the bytes, limits). One that cannot be
 * fetched or is refused becomes a note in the turn: the model hears that it arrived, never a silent drop.
 */
export async function inboundMedia(channel: Channel, message: InboundMessage, signal: AbortSignal): Promise<InboundMedia> {
  const out: InboundMedia = { media: [], notes: [] };
  for (const attachment of message.attachments ?? []) {
    const what = attachment.kind === "image" ? "an image" : "a voice note";
    if (!channel.fetchAttachment) {
      out.notes.push(`[${what} arrived, but this channel cannot fetch it]`);
      continue;
    }
    const max = attachment.kind === "image" ? IMAGE_MAX_BYTES : AUDIO_MAX_BYTES;
    try {
      if (attachment.bytes !== undefined && attachment.bytes > max) {
        throw new Error(`it is ${attachment.bytes} bytes, over the limit of ${max}`);
      }
      const bytes = await channel.fetchAttachment(attachment, max, signal);
      const where = attachment.kind === "image" ? "the image" : "the audio";
      out.media.push(
        attachment.kind === "image"
          ? imageFromBytes(bytes, { where })
          : audioFromBytes(bytes, attachment.seconds === undefined ? { where } : { where, seconds: attachment.seconds }),
      );
    } catch (error) {
      out.notes.push(`[${what} arrived, but it could not be received: ${errorMessage(error)}]`);
    }
  }
  return out;
}
