import { WASM_MAX_BYTES } from "../../discovery.ts";

/**
 * Bounds of a plugin pack (`prx plugins pack` writes, `install` reads). A pack must carry the largest plugin prx
 * admits (a WASM_MAX_BYTES component), so the byte limits sit above it; everything past them is refused before it
 * is unpacked.
 */
/** Files in a pack (a remote plugin may carry its node_modules). */
export const PACK_MAX_FILES = 4096;
/** Sum of the sizes of the files in a pack. */
export const PACK_MAX_CONTENT_BYTES = WASM_MAX_BYTES + 32 * 1024 * 1024;
/** Size of the .tar.gz itself. */
export const PACK_MAX_ARCHIVE_BYTES = PACK_MAX_CONTENT_BYTES;
/** Length of a path inside a pack, in UTF-8 bytes (ustar's name + prefix fields). */
export const PACK_MAX_PATH_BYTES = 255;
/** The pack manifest, prx-pack.json. */
export const PACK_MANIFEST_MAX_BYTES = 1024 * 1024;
