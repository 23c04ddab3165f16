import type { MediaRef } from "../contracts/chat.ts";

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** What a text-only view of an image says: "[image: png 1024x768, 210 KB; <why>]". */
export function imageNote(ref: MediaRef, why: string): string {
  const facts: string[] = [];
  if (ref.url && !ref.sha256) facts.push(ref.url.length > 200 ? `${ref.url.slice(0, 200)}…` : ref.url);
  else {
    const format = ref.mime ? ref.mime.slice(ref.mime.indexOf("/") + 1) : "image";
    facts.push(ref.width && ref.height ? `${format} ${ref.width}x${ref.height}` : format);
  }
  if (ref.bytes !== undefined) facts.push(size(ref.bytes));
  return `[image: ${facts.join(", ")}; ${why}]`;
}

export const NO_VISION = "this model cannot see images";
export const SHOWN_EARLIER = "shown to the model in an earlier turn";
export const NOT_STORED = "no longer stored";
