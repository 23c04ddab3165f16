/**
 * The QuickJS build engine embedded in the compiled binary: `build.ts` replaces this module (kitBuildPlugin in
 * embed-plugin.ts) with the path of the zstd-compressed componentize-qjs native addon inside the binary and the
 * SHA-256 of the uncompressed library. Run from source, nothing is embedded and the engine comes from node_modules.
 */
export const EMBEDDED_QJS_ADDON: string | null = null;
export const EMBEDDED_QJS_ADDON_SHA256 = "";
