export * from "./limits.ts";
export { sniffMedia, type Sniffed } from "./sniff.ts";
export { imageNote, NO_VISION, SHOWN_EARLIER, NOT_STORED } from "./note.ts";
export {
  imageFromBytes,
  imageFromBase64,
  imageFromDataUrl,
  imageFromHttpsUrl,
  imageFromUrl,
  audioFromBytes,
  checkImageCount,
  storedRef,
  refBytes,
  sha256Hex,
} from "./ingest.ts";
export { prepareMedia, imageUrlOf, imageUrlPieces, type PrepareOptions } from "./prepare.ts";
export { fetchImageUrl, imagePolicy } from "./fetch-image.ts";
