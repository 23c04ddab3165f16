import type { MediaRef } from "../contracts/chat.ts";
import { errorMessage, PrxError } from "../core/errors.ts";
import { checkImageCount, imageFromBytes } from "./ingest.ts";
import { IMAGE_MAX_BYTES } from "./limits.ts";

/** An image file on this machine (`prx agent --image`, `/image` in chat): size checked before it is read. */
export async function imageFromFile(path: string): Promise<MediaRef> {
  const file = Bun.file(path);
  let size: number;
  try {
    size = (await file.stat()).size;
  } catch (error) {
    throw new PrxError("USAGE", `cannot read the image ${path}: ${errorMessage(error)}`, { hint: "give the path of a PNG, JPEG, GIF or WebP file" });
  }
  if (size > IMAGE_MAX_BYTES) {
    throw new PrxError("PAYLOAD_TOO_LARGE", `the image ${path} is ${size} bytes, over the limit of ${IMAGE_MAX_BYTES} bytes`, { hint: "send a smaller image" });
  }
  return imageFromBytes(await file.bytes(), { where: `the image ${path}` });
}

/** Several image files, within MESSAGE_MAX_IMAGES. */
export async function imagesFromFiles(paths: readonly string[]): Promise<MediaRef[]> {
  checkImageCount(paths.length, "the message");
  const images: MediaRef[] = [];
  for (const path of paths) images.push(await imageFromFile(path));
  return images;
}
