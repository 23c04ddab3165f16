import { z } from "zod";
import { PrxError } from "../../core/errors.ts";
import {
  MEMORY_DEFAULT_CATEGORY,
  MEMORY_LIST_MAX,
  MEMORY_MAX_RECALL_LIMIT,
  requireCatalog,
} from "../../memory/index.ts";
import { jsonParser } from "../body.ts";
import type { GatewayContext } from "../context.ts";
import type { GatewayElysia } from "../elysia.ts";
import { jsonResponse } from "../errors.ts";
import {
  MemoryEntryResponseSchema,
  MemoryForgetSchema,
  MemoryListSchema,
  MemorySearchSchema,
  MemoryStoreBodySchema,
  MemoryStoredSchema,
  toMemoryWire,
} from "../memory-schemas.ts";
import { doc } from "../openapi/doc.ts";
import { routeSchema } from "../route-schema.ts";
import { limitFrom } from "./sessions.ts";

export const MemoryStoreBody = routeSchema(MemoryStoreBodySchema);

const OffsetQuery = z.coerce.number().int().min(0);

function offsetFrom(request: Request): number {
  const raw = new URL(request.url).searchParams.get("offset");
  if (raw === null) return 0;
  const parsed = OffsetQuery.safeParse(raw);
  if (!parsed.success)
    throw new PrxError("BAD_REQUEST", `query parameter offset must be an integer >= 0, got "${raw.slice(0, 20)}"`);
  return parsed.data;
}

function notFound(key: string): PrxError {
  return new PrxError("NOT_FOUND", `no memory with key ${JSON.stringify(key)}`, {
    hint: "list keys with GET /api/memory or search with GET /api/memory/search?q=...",
  });
}

/** /api/memory: see, search, add and erase what the assistant remembers (private entries included). */
export function memoryRoutes(app: GatewayElysia, gw: GatewayContext): void {
  const memory = () => gw.host.memory;

  app.get(
    "/api/memory",
    async ({ request }) => {
      const limit = limitFrom(request, MEMORY_LIST_MAX);
      const offset = offsetFrom(request);
      const category = new URL(request.url).searchParams.get("category") ?? undefined;
      const page = await requireCatalog(memory(), "list its entries").list({ limit, offset, category });
      return jsonResponse({ entries: page.entries.map(toMemoryWire), total: page.total, limit, offset });
    },
    {
      detail: doc({
        summary: `List memories, most recently stored first (?limit=N up to ${MEMORY_LIST_MAX}, ?offset=N, ?category=C)`,
        tags: ["memory"],
        responses: { 200: MemoryListSchema },
        errors: [400, 501],
      }),
    },
  );

  app.get(
    "/api/memory/search",
    async ({ request }) => {
      const query = new URL(request.url).searchParams.get("q");
      if (query === null) throw new PrxError("BAD_REQUEST", "query parameter q is required: the words to search for");
      const limit = limitFrom(request, MEMORY_MAX_RECALL_LIMIT);
      const found = await memory().recall(query, limit, null, { includePrivate: true });
      return jsonResponse({ query, entries: found.map(toMemoryWire) });
    },
    {
      detail: doc({
        summary: `Search memories as memory_recall does, private ones included (?q=words, ?limit=N up to ${MEMORY_MAX_RECALL_LIMIT})`,
        tags: ["memory"],
        responses: { 200: MemorySearchSchema },
        errors: [400],
      }),
    },
  );

  app.post(
    "/api/memory",
    async ({ body }) => {
      const category = body.category ?? MEMORY_DEFAULT_CATEGORY;
      await memory().store(body.key, body.content, category, body.session_id ?? null, { private: body.private });
      const entry = await memory().get(body.key);
      return jsonResponse({ entry: entry ? toMemoryWire(entry) : null });
    },
    {
      body: MemoryStoreBody,
      parse: jsonParser(() => gw.config.max_body_bytes),
      detail: doc({
        summary: "Store a memory (an existing key is replaced); private: true keeps it out of auto-recall",
        tags: ["memory"],
        responses: { 200: MemoryStoredSchema },
        errors: [400, 413, 415],
      }),
    },
  );

  app.get(
    "/api/memory/entries/:key",
    async ({ params }) => {
      const entry = await memory().get(params.key);
      if (!entry) throw notFound(params.key);
      return jsonResponse({ entry: toMemoryWire(entry) });
    },
    {
      detail: doc({
        summary: "One memory by key (URL-encoded)",
        tags: ["memory"],
        responses: { 200: MemoryEntryResponseSchema },
        errors: [400, 404],
      }),
    },
  );

  app.delete(
    "/api/memory/entries/:key",
    async ({ params }) => {
      if (!(await memory().forget(params.key))) throw notFound(params.key);
      return jsonResponse({ key: params.key, forgotten: true });
    },
    {
      detail: doc({
        summary: "Forget a memory by key (URL-encoded): the entry and its search index entry are deleted",
        tags: ["memory"],
        responses: { 200: MemoryForgetSchema },
        errors: [400, 404],
      }),
    },
  );
}
