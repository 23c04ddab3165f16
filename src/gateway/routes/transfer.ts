import { SessionExportSchema, toSessionExport, validateSessionId } from "../../agent/index.ts";
import { isPrxError, PrxError } from "../../core/errors.ts";
import {
  importInto,
  requireCatalog,
  MEMORY_IMPORT_MAX_BYTES,
  MEMORY_IMPORT_MAX_ENTRIES,
  MemoryRecordSchema,
  decodeImport,
  importTooLarge,
  parseMemoryImport,
  recordLine,
} from "../../memory/index.ts";
import { readLimited } from "../body.ts";
import type { GatewayContext } from "../context.ts";
import type { GatewayElysia } from "../elysia.ts";
import { jsonResponse } from "../errors.ts";
import { MemoryImportResultSchema } from "../memory-schemas.ts";
import { doc } from "../openapi/doc.ts";

const JSONL = "application/x-ndjson";
const JSONL_TYPES = new Set([JSONL, "application/jsonl", "application/json-lines"]);
/** Lines of an export sent per chunk of the response stream. */
const EXPORT_LINES_PER_CHUNK = 200;

/** A JSON Lines response streamed from `lines`, a chunk at a time (an export never sits whole in memory). */
function jsonLines(lines: AsyncIterable<string>, filename: string): Response {
  const iterator = lines[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk = "";
      for (let i = 0; i < EXPORT_LINES_PER_CHUNK; i++) {
        const next = await iterator.next();
        if (next.done) {
          if (chunk) controller.enqueue(encoder.encode(chunk));
          controller.close();
          return;
        }
        chunk += next.value + "\n";
      }
      controller.enqueue(encoder.encode(chunk));
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": `${JSONL}; charset=utf-8`,
      "content-disposition": `attachment; filename="${filename}"`,
    },
  });
}

/**
 * The body of an import: like every body it is capped by gateway.max_body_bytes (the body-limit middleware refuses a
 * larger declared length first), and by MEMORY_IMPORT_MAX_BYTES when that is the smaller.
 */
async function readImport(request: Request, maxBodyBytes: number): Promise<Uint8Array> {
  if (maxBodyBytes < MEMORY_IMPORT_MAX_BYTES) return readLimited(request, maxBodyBytes);
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > MEMORY_IMPORT_MAX_BYTES) throw importTooLarge(declared);
  try {
    return await readLimited(request, MEMORY_IMPORT_MAX_BYTES);
  } catch (error) {
    if (isPrxError(error, "PAYLOAD_TOO_LARGE")) throw importTooLarge(`more than ${MEMORY_IMPORT_MAX_BYTES}`);
    throw error;
  }
}

function requireJsonLines(request: Request): void {
  const type = request.headers.get("content-type")?.split(";", 1)[0]!.trim().toLowerCase();
  if (type && JSONL_TYPES.has(type)) return;
  throw new PrxError("BAD_REQUEST", `unsupported content type ${type ? `"${type}"` : "(none)"}; send ${JSONL}`, {
    status: 415,
    hint: `set Content-Type: ${JSONL} and send one entry per line, as GET /api/export/memory writes them`,
  });
}

/** /api/export/* and /api/import/*: everything the assistant keeps, out and back in, as JSON Lines. */
export function transferRoutes(app: GatewayElysia, gw: GatewayContext): void {
  app.get(
    "/api/export/memory",
    () => {
      const catalog = requireCatalog(gw.host.memory, "export its entries");
      const lines = (async function* () {
        for await (const record of catalog.records()) yield recordLine(record);
      })();
      return jsonLines(lines, "prx-memory.jsonl");
    },
    {
      detail: doc({
        summary: "Every memory as JSON Lines, one entry per line, oldest first (private ones included)",
        tags: ["export"],
        responses: { 200: { description: "JSON Lines", schema: MemoryRecordSchema, contentType: JSONL } },
        errors: [501],
      }),
    },
  );

  app.post(
    "/api/import/memory",
    async ({ request }) => {
      requireJsonLines(request);
      const records = parseMemoryImport(decodeImport(await readImport(request, gw.config.max_body_bytes)));
      const outcome = await importInto(gw.host.memory, records);
      return jsonResponse({ entries: records.length, ...outcome });
    },
    {
      detail: doc({
        summary:
          `Import JSON Lines as the export writes them (<= ${MEMORY_IMPORT_MAX_ENTRIES} entries; <= ` +
          `gateway.max_body_bytes and <= ${MEMORY_IMPORT_MAX_BYTES} bytes); every line is checked first and a bad ` +
          "one refuses the whole import (400 naming the lines); existing keys are replaced",
        tags: ["export"],
        responses: { 200: MemoryImportResultSchema },
        errors: [400, 409, 413, 415],
      }),
    },
  );

  app.get(
    "/api/export/sessions",
    async ({ request }) => {
      const wanted = new URL(request.url).searchParams.getAll("id").map(validateSessionId);
      const sessions = gw.host.sessions;
      for (const id of wanted) {
        if (!(await sessions.get(id))) throw new PrxError("SESSION_NOT_FOUND", `no session "${id}"`, { hint: "list sessions with GET /api/sessions" });
      }
      const ids = wanted.length > 0 ? wanted : await sessions.ids();
      const lines = (async function* () {
        for (const id of ids) {
          const summary = await sessions.get(id);
          if (summary) yield JSON.stringify(toSessionExport(summary, await sessions.allMessages(id)));
        }
      })();
      return jsonLines(lines, "prx-sessions.jsonl");
    },
    {
      detail: doc({
        summary: "Sessions with all their messages as JSON Lines, one session per line (?id=X, repeatable; all without)",
        tags: ["export"],
        responses: { 200: { description: "JSON Lines", schema: SessionExportSchema, contentType: JSONL } },
        errors: [400, 404],
      }),
    },
  );
}
