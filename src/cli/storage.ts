import { describeSqliteRecall, memoryEmbedder } from "../agent/memory-embed.ts";
import { createProviderResolver } from "../providers/index.ts";
import { loadConfig } from "../config/loader.ts";
import { PrxError } from "../core/errors.ts";
import { openWorkspace } from "../core/workspace.ts";
import { detectVectorSupport } from "../memory/postgres-vector.ts";
import { migrateSqlite, openMemoryVectors, openSqliteDatabase, sqliteStatus, urlFromEnv, type MigrationStatus } from "../storage/index.ts";
import { parseCommand, unknownName, usageError } from "./args.ts";

export const SUBCOMMANDS = ["status", "migrate", "copy"] as const;
const USAGE = `Usage: prx storage <command> [--json]
  status                          the [storage] backend, its schema version and pending migrations
  migrate                         apply pending migrations (every start applies them too, under a lock)
  copy --from sqlite --to postgres
                                  copy the workspace database (sessions, memory and its vectors, tokens, idempotency keys,
                                  plugin KV, cron state, channel state) into the PostgreSQL of [storage];
                                  rows already there are kept, so it can be run again
  copy --from postgres --to sqlite
                                  the other way: the PostgreSQL of [storage] into the workspace database
`;

function out(text: string): void {
  process.stdout.write(text.endsWith("\n") ? text : text + "\n");
}

function statusLines(status: MigrationStatus, where: string): string {
  const lines = [`backend ${status.backend} (${where})`, `schema version ${status.version} of ${status.latest}`];
  for (const a of status.applied) lines.push(`  applied ${a.version} ${a.name} at ${a.applied_at}`);
  for (const p of status.pending) lines.push(`  pending ${p.version} ${p.name}`);
  return lines.join("\n");
}

export async function storageCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand("prx storage", argv, {
    json: { type: "boolean" },
    from: { type: "string" },
    to: { type: "string" },
  });
  const [sub, ...args] = positionals;
  if (values.help || sub === undefined) {
    (values.help ? process.stdout : process.stderr).write(USAGE);
    return values.help ? 0 : 2;
  }
  if (!(SUBCOMMANDS as readonly string[]).includes(sub)) throw unknownName("subcommand", sub, SUBCOMMANDS, "prx storage");
  if (args.length > 0) throw usageError(`prx storage ${sub}: unexpected argument '${args[0]}'`);
  const workspace = openWorkspace(values.workspace);
  const { config } = loadConfig(workspace.configPath);
  const settings = config.storage;
  const json = values.json === true;

  const toSqlite = values.from === "postgres" && values.to === "sqlite";
  if (sub === "copy" && !toSqlite && (values.from !== "sqlite" || values.to !== "postgres")) {
    throw usageError("prx storage copy: --from sqlite --to postgres, or --from postgres --to sqlite");
  }
  const usesPg = settings.backend === "postgres" || sub === "copy";
  if (!usesPg) {
    const db = openSqliteDatabase(workspace.dbPath);
    try {
      const before = sqliteStatus(db).version;
      if (sub === "migrate") migrateSqlite(db);
      const status = sqliteStatus(db);
      const vector =
        config.memory.backend === "sqlite"
          ? await describeSqliteRecall({ memoryVectors: (dir) => openMemoryVectors(db, dir) }, workspace.cacheDir, config, createProviderResolver(config, { configPath: workspace.configPath }))
          : undefined;
      if (json) out(JSON.stringify({ ...status, migrated_from: before, ...(vector ? { vector } : {}) }));
      else {
        out(statusLines(status, workspace.dbPath));
        if (vector) out(`memory recall: ${vector.detail}`);
      }
      return 0;
    } finally {
      db.close();
    }
  }

  const url = urlFromEnv(settings.url_env, process.env, "prx storage");
  const { copyPgToSqlite, copySqliteToPg, pgStorage } = await import("../storage/postgres/index.ts");
  const storage = await pgStorage({ url, schema: settings.schema, poolMax: settings.pool_max, migrate: sub !== "status" });
  try {
    const status = await storage.status();
    const where = `schema ${settings.schema} of $${settings.url_env}`;
    if (sub === "copy") {
      const db = openSqliteDatabase(workspace.dbPath);
      try {
        const line = (t: { table: string; read: number; inserted: number }) => {
          if (!json) out(`${t.table.padEnd(20)} ${String(t.read).padStart(7)} read  ${String(t.inserted).padStart(7)} inserted`);
        };
        const report = toSqlite ? await copyPgToSqlite(storage.sql, db, line) : await copySqliteToPg(db, storage.sql, line);
        if (json) out(JSON.stringify({ tables: report }));
        else if (toSqlite && settings.backend !== "sqlite") out(`copied; set [storage] backend = "sqlite" in ${workspace.configPath} to use it`);
        else if (!toSqlite && settings.backend !== "postgres") out(`copied; set [storage] backend = "postgres" in ${workspace.configPath} to use it`);
      } finally {
        db.close();
      }
      return 0;
    }
    const embeds =
      config.memory.backend === "postgres" &&
      memoryEmbedder(config, createProviderResolver(config, { configPath: workspace.configPath })) !== undefined;
    const vector = await detectVectorSupport(storage.sql, embeds);
    if (json) out(JSON.stringify({ ...status, applied_now: storage.applied, vector }));
    else {
      out(statusLines(status, where));
      if (storage.applied.length > 0) out(`applied now: ${storage.applied.join(", ")}`);
      out(`memory recall: ${vector.detail}`);
    }
    if (sub === "status" && status.pending.length > 0 && !json) {
      throw new PrxError("STORAGE", `${status.pending.length} migration(s) pending`, { hint: "run `prx storage migrate` (a start applies them too)" });
    }
    return 0;
  } finally {
    await storage.close();
  }
}
