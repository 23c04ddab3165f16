import type { ChatMessage, MediaRef } from "../../contracts/chat.ts";
import { imageNote, imageUrlOf, NO_VISION, SHOWN_EARLIER } from "../../media/index.ts";

/** elizaOS's model type for "describe this image": params `{imageUrl, prompt}`, result `{title, description}`. */
export const IMAGE_DESCRIPTION_MODEL = "IMAGE_DESCRIPTION";
/** What a plugin's description may add to the prompt, per image. */
export const IMAGE_DESCRIPTION_MAX_CHARS = 4_000;
/** Asked of every image, in the shape elizaOS's model plugins parse ("Title: ..." then the description). */
export const IMAGE_DESCRIPTION_PROMPT =
  "Give this image a title on a line starting with \"Title:\", then describe it in detail, including any text it shows.";

export type DescribeImage = (params: { imageUrl: string; prompt: string }) => Promise<unknown>;

/**
 * Messages for a plugin whose text models take only text, as elizaOS composes them: each image of the newest user
 * message goes to the plugin's IMAGE_DESCRIPTION model and its description joins that message's text; images of
 * earlier messages, or all images when the plugin describes none, become their text note. Never a silent drop.
 */
export async function describeImages(messages: ChatMessage[], describe: DescribeImage | null): Promise<ChatMessage[]> {
  if (!messages.some((message) => message.media?.some((ref) => ref.kind === "image"))) return messages;
  const newestUser = messages.findLastIndex((message) => message.role === "user");
  return Promise.all(
    messages.map(async (message, index) => {
      const images = (message.media ?? []).filter((ref) => ref.kind === "image");
      if (images.length === 0) return message;
      const { media: _media, ...rest } = message;
      const lines = await Promise.all(
        images.map((ref) => {
          if (!describe) return imageNote(ref, NO_VISION);
          if (index !== newestUser) return imageNote(ref, SHOWN_EARLIER);
          return description(ref, describe);
        }),
      );
      return { ...rest, content: [message.content, ...lines].filter((text) => text !== "").join("\n") };
    }),
  );
}

async function description(ref: MediaRef, describe: DescribeImage): Promise<string> {
  const result = await describe({ imageUrl: imageUrlOf(ref), prompt: IMAGE_DESCRIPTION_PROMPT });
  const said = describedText(result).slice(0, IMAGE_DESCRIPTION_MAX_CHARS);
  return said ? `[image: ${said}]` : imageNote(ref, "its description was empty");
}

function describedText(result: unknown): string {
  if (typeof result === "string") return result.trim();
  if (!result || typeof result !== "object") return "";
  const { title, description } = result as { title?: unknown; description?: unknown };
  const parts = [title, description].filter((part): part is string => typeof part === "string" && part.trim() !== "");
  return parts.map((part) => part.trim()).join(": ");
}
