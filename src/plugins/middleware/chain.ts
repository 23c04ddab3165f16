import { EnvelopeParsers, Stages } from "../../agent/envelopes.ts";
import type { Envelopes, MiddlewareRunner, Stage } from "../../agent/envelopes.ts";
import { errorMessage } from "../../core/errors.ts";
import { createLogger } from "../../core/logger.ts";
import type { Logger } from "../../core/logger.ts";
import type {
  MiddlewareEntry,
  MiddlewareEntryStats,
  MiddlewareFailureKind,
  MiddlewareOutcome,
  MiddlewareStatusSink,
} from "./types.ts";

/** Default time one middleware call may take before its output is ignored and the envelope passes on. */
export const MIDDLEWARE_TIMEOUT_MS = 5000;

class StepFailure extends Error {
  constructor(
    readonly kind: MiddlewareFailureKind,
    message: string,
  ) {
    super(message);
  }
}

/** Order: priority (lower first), then plugin name, then capability name (code-unit order, locale-free). */
export function compareEntries(a: MiddlewareEntry, b: MiddlewareEntry): number {
  if (a.priority !== b.priority) return a.priority - b.priority;
  if (a.plugin !== b.plugin) return a.plugin < b.plugin ? -1 : 1;
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return 0;
}

/**
 * A generation's middleware chain. Each entry gets the envelope as JSON and must return a valid envelope of the
 * same stage; invalid JSON, a reply failing the stage's schema, a thrown error or a timeout is logged, counted,
 * reported to the status sink, and the envelope that entry received passes on unchanged. run never throws.
 */
export class MiddlewareChain implements MiddlewareRunner {
  private readonly byStage: Record<Stage, MiddlewareEntry[]>;
  private readonly entryStats = new Map<MiddlewareEntry, MiddlewareEntryStats>();
  private readonly ordered: MiddlewareEntry[];
  private readonly logger: Logger;
  private readonly sink?: MiddlewareStatusSink;
  private readonly timeoutMs: number;

  constructor(
    entries: readonly MiddlewareEntry[],
    options: { sink?: MiddlewareStatusSink; logger?: Logger; timeoutMs?: number } = {},
  ) {
    this.ordered = [...entries].sort(compareEntries);
    this.sink = options.sink;
    this.logger = options.logger ?? createLogger("plugins.middleware");
    this.timeoutMs = options.timeoutMs ?? MIDDLEWARE_TIMEOUT_MS;
    const byStage = {} as Record<Stage, MiddlewareEntry[]>;
    for (const stage of Stages) {
      byStage[stage] = this.ordered.filter((e) => e.stages === "all" || e.stages.includes(stage));
    }
    this.byStage = byStage;
    for (const entry of this.ordered) {
      this.entryStats.set(entry, {
        plugin: entry.plugin,
        name: entry.name,
        priority: entry.priority,
        stages: entry.stages,
        calls: 0,
        failures: 0,
        byKind: { invalid_json: 0, invalid_envelope: 0, error: 0, timeout: 0 },
        lastError: null,
      });
    }
  }

  /** Entries in chain order. */
  entries(): readonly MiddlewareEntry[] {
    return this.ordered;
  }

  /** Entries that run for a stage, in order. */
  entriesFor(stage: Stage): readonly MiddlewareEntry[] {
    return this.byStage[stage];
  }

  stats(): MiddlewareEntryStats[] {
    return this.ordered.map((e) => structuredClone(this.entryStats.get(e)!));
  }

  async run<S extends Stage>(stage: S, envelope: Envelopes[S]): Promise<Envelopes[S]> {
    const entries = this.byStage[stage];
    if (!entries || entries.length === 0) return envelope;
    let current = { envelope, json: JSON.stringify(envelope) };
    for (const entry of entries) current = await this.step(entry, stage, current);
    return current.envelope;
  }

  /** One middleware call. The JSON travels with the envelope so an unchanged reply costs no parse or validation. */
  private async step<S extends Stage>(
    entry: MiddlewareEntry,
    stage: S,
    input: { envelope: Envelopes[S]; json: string },
  ): Promise<{ envelope: Envelopes[S]; json: string }> {
    const started = performance.now();
    let next = input;
    let failure: StepFailure | null = null;
    try {
      const reply = await this.call(entry, stage, input.json);
      if (reply !== input.json) next = parseReply(stage, reply);
    } catch (error) {
      failure = error instanceof StepFailure ? error : new StepFailure("error", errorMessage(error));
    }
    const outcome: MiddlewareOutcome = { stage, ok: failure === null, durationMs: performance.now() - started };
    if (failure) {
      outcome.failure = failure.kind;
      outcome.error = failure.message;
    }
    this.record(entry, outcome);
    return failure ? input : next;
  }

  private call(entry: MiddlewareEntry, stage: Stage, json: string): Promise<string> {
    const timeoutMs = entry.timeoutMs ?? this.timeoutMs;
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new StepFailure("timeout", `no reply within ${timeoutMs} ms`)), timeoutMs);
      let pending: Promise<string>;
      try {
        pending = entry.process(stage, json);
      } catch (error) {
        pending = Promise.reject(error);
      }
      Promise.resolve(pending).then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }

  private record(entry: MiddlewareEntry, outcome: MiddlewareOutcome): void {
    const stats = this.entryStats.get(entry)!;
    stats.calls++;
    if (!outcome.ok) {
      stats.failures++;
      stats.byKind[outcome.failure!]++;
      stats.lastError = { stage: outcome.stage, kind: outcome.failure!, message: outcome.error!, at: Date.now() };
      this.logger.warn("middleware failed; envelope passed on unchanged", {
        plugin: entry.plugin,
        capability: entry.name,
        stage: outcome.stage,
        kind: outcome.failure,
        error: outcome.error,
      });
    }
    if (!this.sink) return;
    try {
      this.sink.onResult(entry, outcome);
    } catch (error) {
      this.logger.error("middleware status sink failed", { error: errorMessage(error) });
    }
  }
}

/**
 * A reply as the next envelope and its JSON. When the envelope is the parsed reply itself (the plain shape, no
 * keys stripped) the reply text is that JSON already; otherwise it is serialized again.
 */
function parseReply<S extends Stage>(stage: S, reply: unknown): { envelope: Envelopes[S]; json: string } {
  if (typeof reply !== "string") {
    throw new StepFailure("invalid_json", `reply is ${typeof reply}, expected a JSON string`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(reply);
  } catch (error) {
    throw new StepFailure("invalid_json", `reply is not JSON: ${(error as Error).message}`);
  }
  const result = EnvelopeParsers[stage].safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join(".") : "(root)";
    throw new StepFailure("invalid_envelope", `reply is not a valid ${stage} envelope at ${where}: ${issue?.message}`);
  }
  const envelope = result.data as Envelopes[S];
  return { envelope, json: envelope === parsed ? reply : JSON.stringify(envelope) };
}
