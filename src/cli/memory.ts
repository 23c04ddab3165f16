import { readFileSync, statSync } from "node:fs";
import { PrxError } from "../core/errors.ts";
import { terminalJson, visible } from "../core/terminal.ts";
import { toMemoryWire } from "../gateway/memory-schemas.ts";
import {
  decodeImport,
  importInto,
  importTooLarge,
  MEMORY_DEFAULT_CATEGORY,
  MEMORY_IMPORT_MAX_BYTES,
  MEMORY_LIST_MAX,
  MEMORY_MAX_RECALL_LIMIT,
  MEMORY_REINDEX_BATCH,
  parseMemoryImport,
  PRIVATE_CATEGORY,
  recordLine,
  requireCatalog,
  type MemoryEntry,
} from "../memory/index.ts";
import { parseCommand, unknownName, usageError } from "./args.ts";
import { exportOutput, openMemory, type OpenedMemory } from "./open-memory.ts";

export const SUBCOMMANDS = ["list", "search", "show", "store", "forget", "export", "import", "reindex"] as const;
const USAGE = `Usage: prx memory <command> [--json]
  list [--limit N] [--offset N] [--category C]   what the assistant remembers, newest first (at most ${MEMORY_LIST_MAX} per page)
  search <words...> [--limit N]                  relevant entries, best first, as memory_recall finds them
  show <key>                                     one entry
  store <key> <content> [--category C] [--private] [--session ID]
                                                 remember something; --private keeps it out of every prompt
                                                 (only search, show, list and export see it)
  forget <key>...                                delete entries (and their search index entries)
  export [--output FILE]                         every entry as JSON Lines (stdout by default; a file is 0600)
  import <FILE|->                                JSON Lines as export writes them; every line is checked first and
                                                 a bad one refuses the whole import; existing keys are replaced
  reindex [--model M] [--all]                    hybrid recall: embed the entries waiting for a vector (the
                                                 default provider's embedding_model, or M for this run: every
                                                 entry embedded by another model is embedded again; then set
                                                 embedding_model = M); --all embeds every entry again
Private entries are listed, searched, shown and exported here, marked "private"; they never reach a prompt.
`;

function out(text: string): void {
  process.stdout.write(text.endsWith("\n") ? text : text + "\n");
}

function count(raw: string | undefined, flag: string, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw usageError(`prx memory: --${flag} must be a whole number, got '${raw}'`);
  return Math.min(Number(raw), max);
}

function oneLine(entry: MemoryEntry): string {
  const flags = [
    entry.category,
    ...(entry.private && entry.category !== PRIVATE_CATEGORY ? ["private"] : []),
    ...(entry.session_id ? [`session ${entry.session_id}`] : []),
  ].map((flag) => visible(flag));
  const score = entry.score == null ? "" : ` ${entry.score.toFixed(2)}`;
  const content = visible(entry.content.replace(/\s+/g, " "));
  return `${visible(entry.key)} [${flags.join(", ")}]${score}  ${content.length > 100 ? content.slice(0, 99) + "…" : content}`;
}

function describe(entry: MemoryEntry): string {
  return [
    `key:      ${visible(entry.key)}`,
    `category: ${visible(entry.category)}${entry.private ? " (private: never added to a prompt)" : ""}`,
    `scope:    ${entry.session_id ? `session ${visible(entry.session_id)}` : "every session"}`,
    `updated:  ${entry.timestamp}`,
    "",
    visible(entry.content, { multiline: true }),
  ].join("\n");
}

function notFound(key: string): PrxError {
  return new PrxError("NOT_FOUND", `no memory with key ${JSON.stringify(key)}`, {
    hint: "list keys with `prx memory list` or find them with `prx memory search <words>`",
  });
}

export async function memoryCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand("prx memory", argv, {
    json: { type: "boolean" },
    limit: { type: "string" },
    offset: { type: "string" },
    category: { type: "string" },
    private: { type: "boolean" },
    session: { type: "string" },
    output: { type: "string" },
    model: { type: "string" },
    all: { type: "boolean" },
  });
  const [sub, ...args] = positionals;
  if (values.help || sub === undefined) {
    (values.help ? process.stdout : process.stderr).write(USAGE);
    return values.help ? 0 : 2;
  }
  if (!(SUBCOMMANDS as readonly string[]).includes(sub)) throw unknownName("subcommand", sub, SUBCOMMANDS, "prx memory");
  if (sub !== "reindex" && (values.model !== undefined || values.all !== undefined)) {
    throw usageError(`prx memory ${sub}: --model and --all belong to reindex`);
  }
  const opened = await openMemory(values.workspace, values.model === undefined ? {} : { embeddingModel: values.model });
  try {
    return await run(sub as (typeof SUBCOMMANDS)[number], args, values, opened);
  } finally {
    await opened.close();
  }
}

type Values = {
  json?: boolean;
  limit?: string;
  offset?: string;
  category?: string;
  private?: boolean;
  session?: string;
  output?: string;
  model?: string;
  all?: boolean;
};

function expect(args: string[], n: number, usage: string): void {
  if (args.length !== n) throw usageError(`prx memory ${usage}`);
}

async function run(sub: (typeof SUBCOMMANDS)[number], args: string[], values: Values, opened: OpenedMemory): Promise<number> {
  const { memory } = opened;
  const json = values.json === true;
  switch (sub) {
    case "list": {
      expect(args, 0, "list takes no arguments (filter with --category C)");
      const limit = count(values.limit, "limit", 50, MEMORY_LIST_MAX);
      const offset = count(values.offset, "offset", 0, Number.MAX_SAFE_INTEGER);
      const page = await requireCatalog(memory, "list its entries").list({ limit, offset, category: values.category });
      if (json) out(terminalJson({ entries: page.entries.map(toMemoryWire), total: page.total, limit, offset }));
      else if (page.total === 0) out(`no memories${values.category ? ` in category ${visible(values.category)}` : ""}`);
      else {
        for (const entry of page.entries) out(oneLine(entry));
        const last = offset + page.entries.length;
        out(`(${page.entries.length === 0 ? "none" : `${offset + 1}-${last}`} of ${page.total}${last < page.total ? `; next page: --offset ${last}` : ""})`);
      }
      return 0;
    }
    case "search": {
      if (args.length === 0) throw usageError("prx memory search needs the words to search for");
      const query = args.join(" ");
      const found = await memory.recall(query, count(values.limit, "limit", 10, MEMORY_MAX_RECALL_LIMIT), null, {
        includePrivate: true,
      });
      if (json) out(terminalJson({ query, entries: found.map(toMemoryWire) }));
      else out(found.length === 0 ? "no memories matched" : found.map(oneLine).join("\n"));
      return 0;
    }
    case "show": {
      expect(args, 1, "show takes exactly one key");
      const entry = await memory.get(args[0]!);
      if (!entry) throw notFound(args[0]!);
      out(json ? terminalJson({ entry: toMemoryWire(entry) }) : describe(entry));
      return 0;
    }
    case "store": {
      expect(args, 2, 'store takes a key and the content: prx memory store <key> "<content>"');
      const [key, content] = args as [string, string];
      await memory.store(key, content, values.category ?? MEMORY_DEFAULT_CATEGORY, values.session ?? null, {
        private: values.private === true,
      });
      const entry = await memory.get(key);
      out(json ? terminalJson({ entry: entry ? toMemoryWire(entry) : null }) : `stored ${values.private ? "private " : ""}memory ${JSON.stringify(key)}`);
      return 0;
    }
    case "forget": {
      if (args.length === 0) throw usageError("prx memory forget needs at least one key");
      const missing: string[] = [];
      for (const key of args) {
        const removed = await memory.forget(key);
        if (!removed) missing.push(key);
        if (!json) out(removed ? `forgot ${JSON.stringify(key)}` : `no memory with key ${JSON.stringify(key)}`);
      }
      if (json) out(terminalJson({ forgotten: args.filter((k) => !missing.includes(k)), missing }));
      return missing.length > 0 ? 1 : 0;
    }
    case "export": {
      expect(args, 0, "export takes no arguments (choose a file with --output FILE)");
      const catalog = requireCatalog(memory, "export its entries");
      const output = exportOutput(values.output);
      let n = 0;
      try {
        for await (const record of catalog.records()) {
          output.write(recordLine(record) + "\n");
          n++;
        }
      } finally {
        output.close();
      }
      if (values.output !== undefined) process.stderr.write(`exported ${n} memories to ${values.output}\n`);
      return 0;
    }
    case "reindex": {
      expect(args, 0, "reindex takes no arguments (choose the model with --model M)");
      if (!memory.embeddings) {
        throw new PrxError("MEMORY", `memory backend "${memory.name}" does not keep vectors: ${opened.recallDetail ?? "recall is not hybrid"}`, {
          hint: "set embedding_model on the default provider (an OpenAI-compatible one) for hybrid recall",
        });
      }
      const tty = process.stderr.isTTY === true && !json;
      const embedded = await memory.embeddings.reindex({
        all: values.all === true,
        batch: MEMORY_REINDEX_BATCH,
        progress: tty ? (done, total) => void process.stderr.write(`\rembedded ${done} of ${total}`) : undefined,
      });
      if (tty) process.stderr.write("\n");
      if (json) out(terminalJson({ embedded }));
      else out(`embedded ${embedded} ${embedded === 1 ? "memory" : "memories"}`);
      return 0;
    }
    case "import": {
      expect(args, 1, "import takes one file (or - for stdin)");
      const bytes = args[0] === "-" ? await readImportStdin() : readImportFile(args[0]!);
      const records = parseMemoryImport(decodeImport(bytes));
      const outcome = await importInto(memory, records);
      if (json) out(terminalJson({ entries: records.length, ...outcome }));
      else out(`imported ${records.length} memories (${outcome.created} new, ${outcome.replaced} replaced)`);
      return 0;
    }
  }
}

function readImportFile(path: string): Uint8Array {
  try {
    const size = statSync(path).size;
    if (size > MEMORY_IMPORT_MAX_BYTES) throw importTooLarge(size);
    return readFileSync(path);
  } catch (cause) {
    if (cause instanceof PrxError) throw cause;
    throw new PrxError("USAGE", `prx memory import: cannot read ${path}: ${(cause as Error).message}`, {
      cause,
      hint: "give the path of a file written by `prx memory export`, or - to read stdin",
    });
  }
}

/** Standard input, read until its end or until it is past MEMORY_IMPORT_MAX_BYTES. */
async function readImportStdin(): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of Bun.stdin.stream()) {
    total += chunk.byteLength;
    if (total > MEMORY_IMPORT_MAX_BYTES) throw importTooLarge(`more than ${MEMORY_IMPORT_MAX_BYTES}`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
