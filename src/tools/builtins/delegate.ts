import { errorMessage } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { defineTool } from "../define.ts";
import { DELEGATE_DEFAULT_ITERATIONS, DELEGATE_DEFAULT_TIMEOUT_S, DELEGATE_DEFAULT_TOKENS } from "../limits.ts";
import { fail, ok } from "../result.ts";
import type { Tool } from "../types.ts";
import { delegateUnavailable } from "./agent-tools-policy.ts";
import { DelegateArgs } from "./agent-tools-schemas.ts";
import { BUILTIN_TOOL_DESCRIPTIONS } from "./schemas.ts";
import type { BuiltinToolsOptions } from "./types.ts";

/**
 * delegate: a sub-task run as a helper turn in a new child session linked to the caller's, with its own system
 * prompt, a subset of the tools and a budget (tool rounds, tokens, seconds); its answer comes back as the result.
 * Helpers may delegate again down to [tools.delegate] max_depth levels.
 */
export function createDelegateTool(options: BuiltinToolsOptions): Tool {
  const unavailable = delegateUnavailable(options);
  const maxDepth = options.config.delegate.max_depth;
  return defineTool({
    unavailable,
    name: "delegate",
    description: BUILTIN_TOOL_DESCRIPTIONS.delegate,
    args: DelegateArgs,
    async run(args, context) {
      if (unavailable !== undefined) return fail(unavailable);
      if (!context.runHelperTurn) return fail("delegate cannot run a helper here (no agent host runs this turn)");
      const depth = ((await options.sessionLinks!().parentOf(context.sessionId))?.depth ?? 0) + 1;
      if (depth > maxDepth) {
        return fail(
          `delegate is limited to ${maxDepth} nested level${maxDepth === 1 ? "" : "s"} ([tools.delegate] max_depth) and this is a helper at level ${depth - 1}: do the task yourself`,
        );
      }
      const sessionId = newId("delegate");
      const timeoutS = args.timeout_s ?? DELEGATE_DEFAULT_TIMEOUT_S;
      const timer = AbortSignal.timeout(timeoutS * 1000);
      try {
        const outcome = await context.runHelperTurn({
          sessionId,
          depth,
          task: args.task,
          systemPrompt: args.system_prompt,
          tools: args.tools,
          maxIterations: args.max_iterations ?? DELEGATE_DEFAULT_ITERATIONS,
          maxTokens: args.max_tokens ?? DELEGATE_DEFAULT_TOKENS,
          signal: AbortSignal.any([context.signal, timer]),
        });
        return ok(JSON.stringify({ session_id: sessionId, answer: outcome.text, iterations: outcome.iterations, tokens: outcome.tokens }));
      } catch (error) {
        if (timer.aborted && !context.signal.aborted) {
          return fail(`the helper ran out of time (${timeoutS} s); session ${sessionId} keeps what it did`);
        }
        return fail(`the helper failed: ${errorMessage(error)} (session ${sessionId})`);
      }
    },
  });
}
