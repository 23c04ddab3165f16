import type { ConfigChanges } from "../config/changes.ts";
import type { Config } from "../config/schema.ts";
import { errorMessage, toPrxError } from "../core/errors.ts";
import { createLogger, type Logger } from "../core/logger.ts";
import type { AgentHost } from "./host.ts";

/** What one part of a process beyond the agent host (MCP servers, channels, plugins) does with a new configuration. */
export interface ConfigApplier {
  /** Named in the log when it fails. */
  name: string;
  /** Apply `next` (the keys in `changes.changed` differ); returns what it did, in a few words each (may be none). */
  apply(next: Config, changes: ConfigChanges): Promise<string[]> | string[];
}

/** The answer of one reload: what /api/config/reload returns and /health, the console and `prx doctor` show. */
export interface ConfigReloadOutcome {
  /** False: the file was refused (`error` says why and where) and the running configuration stays. */
  ok: boolean;
  /** The host's generation serving after this reload. */
  generation: number;
  /** Keys applied live by this reload ("providers.openai", "autonomy", "channels.telegram"...). */
  applied: string[];
  /** What the appliers did ("MCP server fs started", "channel telegram restarted"...). */
  notes: string[];
  /** Keys that differ from what this process started with and that only a restart applies. */
  restart: string[];
  error: { code: string; message: string; hint?: string } | null;
  /** When it was decided (ISO time). */
  at: string;
}

export interface ConfigReloaderOptions {
  host: Pick<AgentHost, "config" | "reload" | "generation" | "env">;
  /** config.toml of the workspace. */
  path: string;
  appliers?: ConfigApplier[];
  logger?: Logger;
  now?: () => number;
}

/** Keys a process keeps from its start whatever the file says: a restart applies them (changes.ts). */
function keepStartSettings(next: Config, started: Config): Config {
  // GATEWAY_RESTART_KEYS of changes.ts, which is loaded with the first reload, not at start
  const { host, port, allow_public_bind } = started.gateway;
  return { ...next, gateway: { ...next.gateway, host, port, allow_public_bind }, storage: started.storage, bus: started.bus };
}

/**
 * Applies config.toml to a running process: the file is read and validated whole (the same checks as a start); a
 * refused file leaves everything as it runs and is reported; an accepted one is applied to the agent host (one
 * generation swap) and then to each applier. Reloads run one at a time; a file whose text was already decided on
 * gets that same answer again (the watch and `prx config set` asking for the same edit apply it once).
 */
export class ConfigReloader {
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly started: Config;
  private readonly appliers: ConfigApplier[];
  private chain: Promise<unknown> = Promise.resolve();
  private lastText: string | null | undefined;
  private outcome: ConfigReloadOutcome | null = null;

  constructor(private readonly options: ConfigReloaderOptions) {
    this.logger = options.logger ?? createLogger("config");
    this.now = options.now ?? Date.now;
    this.started = options.host.config;
    this.appliers = [...(options.appliers ?? [])];
  }

  /** Appliers that exist only once the process has started (the channel supervisor). */
  add(applier: ConfigApplier): void {
    this.appliers.push(applier);
  }

  /** The last reload's outcome; null before the first. */
  get last(): ConfigReloadOutcome | null {
    return this.outcome;
  }

  /** Read config.toml and apply it (see the class). Never throws: a refusal is an outcome with ok false. */
  reload(): Promise<ConfigReloadOutcome> {
    const run = this.chain.then(() => this.reloadNow());
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** /health's `config` check: always ok (the running configuration serves); its detail names a refusal or a pending restart. */
  check(): { ok: boolean; detail?: string } {
    const last = this.outcome;
    if (!last) return { ok: true };
    const parts: string[] = [];
    if (!last.ok && last.error) parts.push(`config.toml refused at ${last.at}, still serving generation ${last.generation}: ${last.error.message}`);
    if (last.restart.length > 0) parts.push(`restart to apply: ${last.restart.join(", ")}`);
    return parts.length > 0 ? { ok: true, detail: parts.join("; ") } : { ok: true, detail: `generation ${last.generation} applied at ${last.at}` };
  }

  private async reloadNow(): Promise<ConfigReloadOutcome> {
    const { readConfigSource } = await import("../config/source.ts");
    let text: string | null;
    try {
      text = readConfigSource(this.options.path);
    } catch (error) {
      return this.refused(error, undefined);
    }
    if (this.outcome && text === this.lastText) return this.outcome;
    let parsed: Config;
    try {
      if (text === null) {
        throw toPrxError(new Error(`${this.options.path} is gone`), "CONFIG_NOT_FOUND");
      }
      const [{ parseConfig }, { applyEnvOverrides }] = await Promise.all([import("../config/loader.ts"), import("../config/env.ts")]);
      parsed = applyEnvOverrides(parseConfig(text, this.options.path), this.options.host.env);
    } catch (error) {
      return this.refused(error, text);
    }
    const { configChanges } = await import("../config/changes.ts");
    const host = this.options.host;
    const next = keepStartSettings(parsed, this.started);
    const live = configChanges(host.config, next);
    const restart = configChanges(this.started, parsed).restart;
    const notes: string[] = [];
    if (live.changed.length > 0) {
      try {
        await host.reload(next);
      } catch (error) {
        return this.refused(error, text);
      }
      for (const applier of this.appliers) {
        try {
          notes.push(...(await applier.apply(next, live)));
        } catch (error) {
          const message = `${applier.name}: ${errorMessage(error)}`;
          notes.push(message);
          this.logger.error(`config.toml applied, but ${message}`);
        }
      }
    }
    this.lastText = text;
    this.outcome = { ok: true, generation: host.generation, applied: live.changed, notes, restart, error: null, at: new Date(this.now()).toISOString() };
    if (live.changed.length > 0) {
      this.logger.info(`config.toml applied: ${live.changed.join(", ")} (generation ${host.generation})${notes.length ? `; ${notes.join("; ")}` : ""}`);
    }
    if (restart.length > 0) this.logger.warn(`config.toml: ${restart.join(", ")} changed; restart the process to apply ${restart.length === 1 ? "it" : "them"}`);
    return this.outcome;
  }

  private refused(error: unknown, text: string | null | undefined): ConfigReloadOutcome {
    const prx = toPrxError(error, "CONFIG_INVALID");
    if (text !== undefined) this.lastText = text;
    const restart = this.outcome?.restart ?? [];
    this.outcome = {
      ok: false,
      generation: this.options.host.generation,
      applied: [],
      notes: [],
      restart,
      error: { code: prx.code, message: prx.message, ...(prx.hint ? { hint: prx.hint } : {}) },
      at: new Date(this.now()).toISOString(),
    };
    this.logger.error(`config.toml not applied; the running configuration stays (generation ${this.outcome.generation}): ${prx.message}`);
    return this.outcome;
  }
}
