import type { Binding } from "../config/schema.ts";
import { MAIN_AGENT, type BindingTarget } from "./types.ts";

/**
 * The agent that answers a message: the binding matching it with the most specific fields wins (a peer or a group
 * counts more than a channel; among equals, the first in config.toml), else `main`. A binding matches when every
 * field it sets equals the message's.
 */
export function bindAgent(bindings: readonly Binding[], target: BindingTarget): string {
  let best: { agent: string; score: number } | null = null;
  for (const binding of bindings) {
    const score = specificity(binding, target);
    if (score !== null && (best === null || score > best.score)) best = { agent: binding.agent, score };
  }
  return best?.agent ?? MAIN_AGENT;
}

/** null when the binding does not match; else higher for more specific bindings. */
function specificity(binding: Binding, target: BindingTarget): number | null {
  let score = 0;
  if (binding.channel !== undefined) {
    if (binding.channel !== target.channel) return null;
    score += 1;
  }
  if (binding.group !== undefined) {
    if (binding.group !== target.group) return null;
    score += 2;
  }
  if (binding.peer !== undefined) {
    if (binding.peer !== target.peer) return null;
    score += 4;
  }
  return score;
}
