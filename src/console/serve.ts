import { PrxError } from "../core/errors.ts";
import { CONSOLE_PAGE, type ConsoleFile } from "./bundle.ts";
import { loadConsoleFiles } from "./files.ts";

/** Answers for the console's page and assets (what the gateway's console routes return). */
export interface ConsoleAssets {
  page(): Response;
  asset(name: string): Response;
}

function answer(file: ConsoleFile, cache: string): Response {
  return new Response(file.bytes, {
    headers: {
      "content-type": file.type,
      "cache-control": cache,
      // the console runs only its own bundled code and talks only to this gateway
      "content-security-policy":
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'",
      "x-content-type-options": "nosniff",
    },
  });
}

/** The console's files, loaded once (embedded in the binary, or bundled from source). */
export async function consoleAssets(): Promise<ConsoleAssets> {
  const files = new Map((await loadConsoleFiles()).map((file) => [file.name, file]));
  const page = files.get(CONSOLE_PAGE);
  if (!page) throw new PrxError("INTERNAL", "the console bundle has no index.html", { hint: "rebuild prx with `bun run build`" });
  return {
    page: () => answer(page, "no-cache"),
    asset(name) {
      const file = name === CONSOLE_PAGE ? undefined : files.get(name);
      if (!file) throw new PrxError("NOT_FOUND", `no console file "${name}"`, { hint: "reload the console page: its files change with each build" });
      // names carry a content hash: they never change
      return answer(file, "public, max-age=31536000, immutable");
    },
  };
}
