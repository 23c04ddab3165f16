import type { ChatMessage, MediaRef } from "../contracts/chat.ts";
import type { Awaitable } from "../core/awaitable.ts";
import { imageNote, NO_VISION, NOT_STORED, SHOWN_EARLIER } from "./note.ts";

export interface PrepareOptions {
  /** The model takes images (see modelFacts in src/providers). */
  vision: boolean;
  /** User turns, counted back from the newest, whose images are sent; older ones become their note. */
  imageTurns: number;
  /** The stored bytes of a hash (base64), or null when they are gone. */
  load(sha256: string): Awaitable<string | null>;
  /**
   * For a provider that cannot fetch image URLs: fetch an https image (fetchImageUrl, through the outbound guard) so it
   * is sent as bytes. Absent: the URL is passed on for the provider to fetch.
   */
  fetchUrl?: (ref: MediaRef) => Promise<MediaRef>;
}

/**
 * Messages as a provider gets them: each image carries its bytes (`data`) or an https `url` (fetched by `fetchUrl`
 * when given; a failed fetch becomes a note); an image the model
 * cannot see, or one older than `imageTurns` user turns, becomes its text note in the message; audio is left out
 * (its transcript is the message's text). Messages without media are returned as they are.
 */
export async function prepareMedia(messages: ChatMessage[], options: PrepareOptions): Promise<ChatMessage[]> {
  if (!messages.some((message) => message.media !== undefined)) return messages;
  const out = messages.slice();
  let userTurns = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === "user") userTurns++;
    if (!message.media) continue;
    const notes: string[] = [];
    const images: MediaRef[] = [];
    for (const ref of message.media) {
      if (ref.kind !== "image") continue;
      if (!options.vision) notes.push(imageNote(ref, NO_VISION));
      else if (userTurns > options.imageTurns) notes.push(imageNote(ref, SHOWN_EARLIER));
      else if (ref.data === undefined && ref.url && !ref.sha256 && options.fetchUrl) {
        try {
          images.push(await options.fetchUrl(ref));
        } catch (error) {
          // the model is told the image could not be had, never left to guess
          notes.push(imageNote(ref, `it could not be fetched: ${error instanceof Error ? error.message : String(error)}`));
        }
      } else if (ref.data !== undefined || (ref.url && !ref.sha256)) images.push(ref);
      else {
        const data = ref.sha256 ? await options.load(ref.sha256) : null;
        if (data === null) notes.push(imageNote(ref, NOT_STORED));
        else images.push({ ...ref, data });
      }
    }
    const content = notes.length === 0 ? message.content : [message.content, ...notes].filter((t) => t !== "").join("\n");
    const { media: _media, ...rest } = message;
    out[i] = images.length > 0 ? { ...rest, content, media: images } : { ...rest, content };
  }
  return out;
}

/** The data: URL of an image that carries its bytes, else its https URL. */
export function imageUrlOf(ref: MediaRef): string {
  return ref.data !== undefined ? `data:${ref.mime};base64,${ref.data}` : ref.url!;
}

/** imageUrlOf as its pieces: a data: URL's head and its data apart (the data is not copied into a new string). */
export function imageUrlPieces(ref: MediaRef): [string] | [string, string] {
  return ref.data !== undefined ? [`data:${ref.mime};base64,`, ref.data] : [ref.url!];
}
