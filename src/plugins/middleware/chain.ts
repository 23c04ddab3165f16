import { MiddlewareBlock, Stages } from "../../contracts/envelopes.ts";
import type { Envelopes, MiddlewareRunner, Stage, StageOutput } from "../../contracts/envelopes.ts";
import { errorMessage } from "../../core/errors.ts";
import { createLogger } from "../../core/logger.ts";
import type { Logger } from "../../core/logger.ts";
import type { MiddlewareEntry, MiddlewareOutcome, MiddlewareStatusSink } from "./types.ts";
import { blockInError, readReply, StepFailure, type Carried } from "./reply.ts";

/** Default time one middleware call may take before its output is ignored and the envelope passes on. */
export const MIDDLEWARE_TIMEOUT_MS = 5000;

/** Order: priority (lower first), then plugin name, then capability name (code-unit order, locale-free). */
export function compareEntries(a: MiddlewareEntry, b: MiddlewareEntry): number {
  if (a.priority !== b.priority) return a.priority - b.priority;
  if (a.plugin !== b.plugin) return a.plugin < b.plugin ? -1 : 1;
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return 0;
}

/**
 * A generation's middleware chain. Each entry gets the envelope as JSON and returns a valid envelope of the same
 * stage, bare or as `{"action":"continue","data":"<JSON>"}`; invalid JSON, a reply failing the stage's schema, a
 * thrown error or a timeout is logged, reported to the entry (`report`) and the sink, and the envelope that entry received
 * passes on unchanged. `{"action":"block","reason":...}` (as the reply, or as the exact message of a thrown error)
 * stops the stage: no later entry runs and run resolves to a MiddlewareBlock. run never throws.
 */
export class MiddlewareChain implements MiddlewareRunner {
  private readonly byStage: Record<Stage, MiddlewareEntry[]>;
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
  }

  /** Entries in chain order. */
  entries(): readonly MiddlewareEntry[] {
    return this.ordered;
  }

  /** Entries that run for a stage, in order. */
  entriesFor(stage: Stage): readonly MiddlewareEntry[] {
    return this.byStage[stage];
  }

  /** Whether any entry runs for a stage. */
  active(stage: Stage): boolean {
    return this.byStage[stage].length > 0;
  }

  async run<S extends Stage>(stage: S, envelope: Envelopes[S]): Promise<StageOutput<S>> {
    const entries = this.byStage[stage];
    if (!entries || entries.length === 0) return envelope;
    let current: Carried<S> = { envelope, json: JSON.stringify(envelope) };
    for (const entry of entries) {
      const next = await this.step(entry, stage, current);
      if (next instanceof MiddlewareBlock) return next;
      current = next;
    }
    return current.envelope;
  }

  /** One middleware call. The JSON travels with the envelope so an unchanged reply costs no parse or validation. */
  private async step<S extends Stage>(
    entry: MiddlewareEntry,
    stage: S,
    input: Carried<S>,
  ): Promise<Carried<S> | MiddlewareBlock<S>> {
    const started = performance.now();
    let next = input;
    let block: string | null = null;
    let failure: StepFailure | null = null;
    try {
      const read = readReply(stage, await this.call(entry, stage, input.json), input);
      if (read.block === undefined) next = read.next;
      else block = read.block;
    } catch (error) {
      if (error instanceof StepFailure) failure = error;
      else if ((block = blockInError(error)) === null) failure = new StepFailure("error", errorMessage(error));
    }
    const outcome: MiddlewareOutcome = { stage, ok: failure === null, durationMs: performance.now() - started };
    if (failure) {
      outcome.failure = failure.kind;
      outcome.error = failure.message;
    }
    if (block !== null) outcome.block = block;
    this.record(entry, outcome);
    if (block !== null) return new MiddlewareBlock(entry.plugin, entry.name, stage, block, input.envelope);
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
    if (outcome.block !== undefined) {
      this.logger.info("middleware blocked the turn", {
        plugin: entry.plugin,
        capability: entry.name,
        stage: outcome.stage,
        reason: outcome.block,
      });
    }
    if (!outcome.ok) {
      this.logger.warn("middleware failed; envelope passed on unchanged", {
        plugin: entry.plugin,
        capability: entry.name,
        stage: outcome.stage,
        kind: outcome.failure,
        error: outcome.error,
      });
    }
    try {
      entry.report?.(entry, outcome);
    } catch (error) {
      this.sinkFailed(error);
    }
    try {
      this.sink?.onResult(entry, outcome);
    } catch (error) {
      this.sinkFailed(error);
    }
  }

  private sinkFailed(error: unknown): void {
    this.logger.error("middleware status sink failed", { error: errorMessage(error) });
  }
}
