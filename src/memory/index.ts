export type {
  ImportOutcome,
  MemoryBackend,
  MemoryCatalog,
  MemoryEntry,
  MemoryPage,
  MemoryRecord,
  RecallOptions,
  StoreOptions,
} from "./types.ts";
export { PRIVATE_CATEGORY } from "./types.ts";
export { MemoryEntrySchema } from "./entry-schema.ts";
export { SqliteMemory } from "./sqlite.ts";
export { NoneMemory } from "./none.ts";
export * from "./limits.ts";
export { toFtsMatch, queryTerms } from "./fts-query.ts";
export { contentTerms, hasContentTerms } from "./relevance.ts";
export { importInto, requireCatalog } from "./manage.ts";
export {
  decodeImport,
  importTooLarge,
  MEMORY_IMPORT_MAX_BYTES,
  MEMORY_IMPORT_MAX_ENTRIES,
  MEMORY_IMPORT_REPORTED_ERRORS,
  MemoryRecordSchema,
  parseMemoryImport,
  recordLine,
} from "./transfer.ts";
export {
  BUILTIN_MEMORY_BACKENDS,
  createMemoryBackend,
  openPgMemory,
  type ExternalMemoryResolver,
} from "./create.ts";
