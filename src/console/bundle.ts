import { join } from "node:path";
import { PrxError } from "../core/errors.ts";

/** The URL prefix of the console's bundled assets (its page is served at "/"). */
export const CONSOLE_ASSET_PREFIX = "/console/";
/** The page's name among the files. */
export const CONSOLE_PAGE = "index.html";

/** One file of the bundled console. */
export interface ConsoleFile {
  name: string;
  type: string;
  bytes: Uint8Array;
}

/**
 * Bundles the console with Bun's HTML bundler: index.html with its script (src/console/app/, TypeScript) and styles
 * (styles.css), minified, assets named by content hash under CONSOLE_ASSET_PREFIX. build.ts runs this at build time
 * and embeds the files in the binary (build-plugin.ts); from source, the first request for the console runs it.
 */
export async function bundleConsole(): Promise<ConsoleFile[]> {
  const result = await Bun.build({
    entrypoints: [join(import.meta.dir, CONSOLE_PAGE)],
    minify: true,
    target: "browser",
    publicPath: CONSOLE_ASSET_PREFIX,
    naming: { entry: "[name].[ext]", chunk: "[name]-[hash].[ext]", asset: "[name]-[hash].[ext]" },
    throw: false,
  });
  if (!result.success) {
    throw new PrxError("INTERNAL", `the console did not bundle: ${result.logs.map(String).join("; ")}`, {
      hint: "run `bun run build` and read its output",
    });
  }
  return Promise.all(
    result.outputs.map(async (output) => ({
      name: output.path.replace(/^\.\//, ""),
      type: output.type,
      bytes: new Uint8Array(await output.arrayBuffer()),
    })),
  );
}
