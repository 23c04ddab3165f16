import type { Envelopes } from "./envelope-schemas.ts";
import type { Stage } from "./stages.ts";

/**
 * What the agent and the plugin runtime share about middleware: the stages, the envelopes (their schemas live in
 * envelope-schemas.ts, loaded only where a middleware's reply is read), a block, and the runner's interface.
 */
export { Stages, type Stage } from "./stages.ts";
export type { Envelopes };

/**
 * A middleware stopped the turn at `stage` (a PDK `{"action":"block","reason":...}` reply, or an error carrying
 * one). `envelope` is what the blocking middleware received. The agent ends the turn with `reason` as the reply.
 */
export class MiddlewareBlock<S extends Stage = Stage> {
  constructor(
    readonly plugin: string,
    readonly capability: string,
    readonly stage: S,
    readonly reason: string,
    readonly envelope: Envelopes[S],
  ) {}
}

/** What a stage yields: the envelope to go on with, or the block that ends the turn. */
export type StageOutput<S extends Stage> = Envelopes[S] | MiddlewareBlock<S>;

/**
 * Runs a stage's middleware chain. Must never throw: failures are isolated and the input passes on; a block is a
 * result, not a failure. A stage no middleware sees returns its envelope as it is, synchronously: an idle stage
 * costs the turn no promise and no generation lookup.
 */
export interface MiddlewareRunner {
  run<S extends Stage>(stage: S, envelope: Envelopes[S]): StageOutput<S> | Promise<StageOutput<S>>;
  /**
   * Whether any middleware will see this stage (absent: assume every stage is seen). While llm_response or outbound
   * middleware is active the agent does not stream raw deltas (they would bypass the transformation) and sends the
   * final text instead.
   */
  active?(stage: Stage): boolean;
}

export const identityMiddleware: MiddlewareRunner = {
  run: (_stage, envelope) => envelope,
  active: () => false,
};
