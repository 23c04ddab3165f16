import { accessSync, constants } from "node:fs";
import { loadConfig } from "../config/loader.ts";
import type { Config } from "../config/schema.ts";
import type { RegistryReply } from "../plugins/fabric/index.ts";
import { errorMessage } from "../core/errors.ts";
import { colorEnabled, paint, terminalJson, visible } from "../core/terminal.ts";
import { openWorkspace, type Workspace } from "../core/workspace.ts";
import { sqliteQuickCheck } from "../storage/sqlite/database.ts";
import { parseCommand } from "./args.ts";
import { runningGateway } from "./running-gateway.ts";

export const DOCTOR_PROBE_TIMEOUT_MS = 5000;

type Status = "ok" | "warn" | "fail";
/** SGR colours of the status labels on a TTY (green, yellow, red); NO_COLOR turns them off. */
const STATUS_COLORS: Record<Status, string> = { ok: "32", warn: "33", fail: "31" };
interface Check {
  status: Status;
  name: string;
  detail: string;
}

async function probeProviders(config: Config): Promise<Check[]> {
  const { createProviderResolver } = await import("../providers/index.ts");
  const resolver = createProviderResolver(config);
  const names = new Set([config.default_provider, ...Object.keys(config.providers), ...config.reliability.fallback_providers]);
  const checks: Check[] = [];
  for (const name of names) {
    if (name.startsWith("wasm:") || name.startsWith("remote:")) {
      checks.push({ status: "ok", name: `provider ${name}`, detail: "plugin provider (see plugins below)" });
      continue;
    }
    try {
      const provider = resolver.resolve(name);
      const problem = provider.probe ? await provider.probe(AbortSignal.timeout(DOCTOR_PROBE_TIMEOUT_MS)) : null;
      checks.push(problem ? { status: "fail", name: `provider ${name}`, detail: problem } : { status: "ok", name: `provider ${name}`, detail: "reachable" });
    } catch (error) {
      checks.push({ status: "fail", name: `provider ${name}`, detail: errorMessage(error) });
    }
  }
  return checks;
}

async function pluginChecks(workspace: Workspace, config: Config): Promise<Check[]> {
  const { describePlugins } = await import("../agent/plugin-extensions.ts");
  try {
    const plugins = await describePlugins(workspace, config);
    if (plugins.length === 0) return [{ status: "ok", name: "plugins", detail: `none in ${workspace.pluginsDir}` }];
    return plugins.map((p) => ({
      status: p.status === "error" || p.status === "conflict" ? "fail" : p.status === "disabled" ? "warn" : "ok",
      name: `plugin ${p.name}`,
      detail: p.message ?? p.status,
    }));
  } catch (error) {
    return [{ status: "fail", name: "plugins", detail: errorMessage(error) }];
  }
}

/**
 * What prx knows of each configured model (default, routes): a model neither model_info nor the built-in table knows
 * gets a small context window, and without prices its cost is not counted, so no budget limits it.
 */
async function modelChecks(config: Config): Promise<Check[]> {
  const { modelFacts, UNKNOWN_MODEL_CONTEXT_WINDOW, UNKNOWN_MODEL_MAX_OUTPUT_TOKENS } = await import("../providers/model-facts.ts");
  const pairs = new Map<string, [string, string]>();
  const add = (provider: string, model: string) => {
    if (!model.startsWith("hint:")) pairs.set(`${provider}\u0000${model}`, [provider, model]);
  };
  add(config.default_provider, config.default_model);
  for (const route of config.model_routes) add(route.provider, route.model);
  const budgeted = config.budget.daily_usd !== undefined || config.budget.monthly_usd !== undefined ||
    Object.keys(config.budget.channels).length > 0 || Object.keys(config.budget.senders).length > 0;
  const checks: Check[] = [];
  for (const [provider, model] of pairs.values()) {
    if (provider.startsWith("wasm:") || provider.startsWith("remote:")) continue;
    const facts = modelFacts(config, provider, model);
    const name = `model ${provider}/${model}`;
    const where = `[providers.${provider}.model_info."${model}"]`;
    if (facts.source === "default") {
      const detail =
        `unknown to prx: a ${UNKNOWN_MODEL_CONTEXT_WINDOW}-token context and ${UNKNOWN_MODEL_MAX_OUTPUT_TOKENS}-token replies are assumed, ` +
        `and with no prices its cost is not counted${budgeted ? " (budgets do not limit it)" : ""}; set its facts in ${where}`;
      checks.push({ status: "warn", name, detail });
    } else if (facts.prices === null && provider !== "offline" && config.providers[provider]?.kind !== "offline") {
      checks.push({ status: "warn", name, detail: `no prices known: its cost is not counted${budgeted ? " (budgets do not limit it)" : ""}; set input_per_mtok and output_per_mtok in ${where}` });
    } else {
      const prices = facts.prices ? `, $${facts.prices.input_per_mtok} in / $${facts.prices.output_per_mtok} out per million tokens` : "";
      checks.push({ status: "ok", name, detail: `${facts.context_window}-token context (${facts.source})${prices}` });
    }
  }
  return checks;
}

/** `[memory] backend = "sqlite"`: hybrid recall or full-text search, and why (a warning when embedding_model is set but sqlite-vec cannot load). */
async function memoryRecallCheck(workspace: Workspace, config: Config): Promise<Check[]> {
  if (config.memory.backend !== "sqlite") return [];
  try {
    const { describeSqliteRecall, memoryEmbedder } = await import("../agent/memory-embed.ts");
    const { createProviderResolver } = await import("../providers/index.ts");
    const { openSqliteDatabase } = await import("../storage/sqlite/database.ts");
    const { openMemoryVectors } = await import("../storage/open.ts");
    const providers = createProviderResolver(config, { configPath: workspace.configPath });
    const db = openSqliteDatabase(workspace.dbPath);
    try {
      const recall = await describeSqliteRecall({ memoryVectors: (dir) => openMemoryVectors(db, dir) }, workspace.cacheDir, config, providers);
      const wanted = memoryEmbedder(config, providers) !== undefined;
      return [{ status: wanted && recall.recall !== "hybrid" ? "warn" : "ok", name: "memory recall", detail: recall.detail }];
    } finally {
      db.close();
    }
  } catch (error) {
    return [{ status: "fail", name: "memory recall", detail: errorMessage(error) }];
  }
}

/** `[storage] backend = "postgres"` and `[bus] backend = "redis"`: each server answers, the schema is current. */
async function scaleOutChecks(config: Config): Promise<Check[]> {
  const checks: Check[] = [];
  if (config.storage.backend === "postgres") {
    try {
      const { urlFromEnv } = await import("../storage/index.ts");
      const { pgStorage } = await import("../storage/postgres/index.ts");
      const url = urlFromEnv(config.storage.url_env, process.env, '[storage] backend = "postgres"');
      const storage = await pgStorage({ url, schema: config.storage.schema, poolMax: 1, migrate: false });
      try {
        const status = await storage.status();
        checks.push(
          status.pending.length === 0
            ? { status: "ok", name: "storage", detail: `postgres schema ${config.storage.schema}, version ${status.version}` }
            : { status: "warn", name: "storage", detail: `${status.pending.length} migration(s) pending (applied at the next start, or prx storage migrate)` },
        );
      } finally {
        await storage.close();
      }
    } catch (error) {
      checks.push({ status: "fail", name: "storage", detail: errorMessage(error) });
    }
  }
  if (config.bus.backend === "redis") {
    try {
      const { urlFromEnv } = await import("../storage/index.ts");
      const { RedisClient } = await import("bun");
      const redis = new RedisClient(urlFromEnv(config.bus.url_env, process.env, '[bus] backend = "redis"'), {
        connectionTimeout: DOCTOR_PROBE_TIMEOUT_MS,
        autoReconnect: false,
      });
      try {
        await redis.send("PING", []);
        const { isAnnouncementLive, readRegistry } = await import("../plugins/fabric/index.ts");
        const reply = (await redis.send("HGETALL", [`${config.bus.prefix}:replicas`])) as RegistryReply;
        const now = Date.now();
        const { entries, stale } = readRegistry(reply, now);
        const live = [...entries.values()].filter((entry) => isAnnouncementLive(entry.at, now)).length;
        const gone = entries.size - live + stale.length;
        const past = gone > 0 ? `; ${gone} stale registry entr${gone === 1 ? "y" : "ies"} (replicas gone quiet; running replicas remove them)` : "";
        checks.push({ status: "ok", name: "bus", detail: `redis answers; ${live} replica(s) running under ${config.bus.prefix}${past}` });
      } finally {
        redis.close();
      }
    } catch (error) {
      checks.push({ status: "fail", name: "bus", detail: errorMessage(error) });
    }
  }
  return checks;
}

/** The workspace's running gateway: whether it runs config.toml as it is, or refused it, or needs a restart for part of it. */
async function runningGatewayCheck(workspace: Workspace): Promise<Check[]> {
  const gateway = runningGateway(workspace);
  if (!gateway) return [];
  const name = "running gateway";
  const where = `pid ${gateway.presence.pid} at ${gateway.presence.url}`;
  const { LastReloadSchema } = await import("../gateway/routes/config-reload.ts");
  let last;
  try {
    last = (await gateway.request("GET", "/api/config/reload", LastReloadSchema)).last;
  } catch (error) {
    return [{ status: "warn", name, detail: `${where}: ${errorMessage(error)}` }];
  }
  if (!last) return [{ status: "ok", name, detail: `${where}: runs config.toml as it was at its start` }];
  const problems: string[] = [];
  if (!last.ok && last.error) problems.push(`refused config.toml at ${last.at} and still serves generation ${last.generation}: ${last.error.message}`);
  if (last.restart.length > 0) problems.push(`restart it to apply: ${last.restart.join(", ")}`);
  if (problems.length === 0) return [{ status: "ok", name, detail: `${where}: runs config.toml (generation ${last.generation}, applied ${last.at})` }];
  return [{ status: "warn", name, detail: `${where}: ${problems.join("; ")}` }];
}

/** [telemetry]: the OTLP receiver takes an (empty) export. */
async function telemetryCheck(config: Config): Promise<Check> {
  const { probeReceiver } = await import("../telemetry/index.ts");
  const problem = await probeReceiver(config.telemetry, process.env, AbortSignal.timeout(DOCTOR_PROBE_TIMEOUT_MS));
  const encoding = config.telemetry.protocol === "http/protobuf" ? "protobuf" : "JSON";
  return problem
    ? { status: "fail", name: "telemetry", detail: `${problem}: traces are dropped until it takes them` }
    : { status: "ok", name: "telemetry", detail: `${config.telemetry.otlp_endpoint} takes OTLP/${encoding} traces` };
}

export async function doctorCommand(argv: string[]): Promise<number> {
  const { values } = parseCommand("prx doctor", argv, { json: { type: "boolean" } }, false);
  if (values.help) {
    process.stdout.write("Usage: prx doctor [--json]\nChecks workspace, config, database, memory recall, providers, models, plugins, the [telemetry] receiver and the running gateway.\n");
    return 0;
  }
  const checks: Check[] = [];
  const workspace = openWorkspace(values.workspace);
  try {
    accessSync(workspace.root, constants.W_OK);
    checks.push({ status: "ok", name: "workspace", detail: workspace.root });
  } catch (error) {
    checks.push({ status: "fail", name: "workspace", detail: `${workspace.root} is not writable: ${errorMessage(error)}` });
  }
  let config: Config | null = null;
  try {
    const loaded = loadConfig(workspace.configPath);
    config = loaded.config;
    checks.push({ status: "ok", name: "config", detail: loaded.path ?? "no config.toml (defaults; run prx init)" });
  } catch (error) {
    checks.push({ status: "fail", name: "config", detail: errorMessage(error) });
  }
  try {
    const result = sqliteQuickCheck(workspace.dbPath);
    checks.push(
      result === "ok"
        ? { status: "ok", name: "database", detail: workspace.dbPath }
        : { status: "fail", name: "database", detail: `${workspace.dbPath}: ${result}` },
    );
  } catch (error) {
    checks.push({ status: "fail", name: "database", detail: errorMessage(error) });
  }
  if (config) {
    checks.push(...(await scaleOutChecks(config)));
    checks.push(...(await memoryRecallCheck(workspace, config)));
    if (config.telemetry.otlp_endpoint !== undefined) checks.push(await telemetryCheck(config));
    checks.push(...(await probeProviders(config)));
    checks.push(...(await modelChecks(config)));
    checks.push(...(await pluginChecks(workspace, config)));
  }
  checks.push(...(await runningGatewayCheck(workspace)));
  if (values.json) {
    process.stdout.write(terminalJson({ ok: checks.every((c) => c.status !== "fail"), checks }, 2) + "\n");
  } else {
    const color = colorEnabled(process.stdout);
    for (const c of checks) {
      const label = paint(color, STATUS_COLORS[c.status], c.status.toUpperCase().padEnd(4));
      process.stdout.write(`${label} ${visible(c.name)}: ${visible(c.detail, { multiline: true })}\n`);
    }
  }
  return checks.some((c) => c.status === "fail") ? 1 : 0;
}
