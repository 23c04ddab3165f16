import type { Config } from "../config/schema.ts";

/** The agent a configuration without `[agents.*]` has, and the one bindings fall back to. */
export const MAIN_AGENT = "main";

/** What `model = "agent:<id>"` starts with on the gateway. */
export const AGENT_MODEL_PREFIX = "agent:";

/** One agent as a turn runs it: `[agents.<id>]` laid over `[agent]` and the top level. */
export interface ResolvedAgent {
  id: string;
  name: string;
  /**
   * The configuration the agent's turns run on: `[agent]` with the agent's name, bio and system prompt,
   * `default_provider`/`default_model` and `[autonomy]` with its overrides; everything else is the workspace's.
   */
  config: Config;
  /** own: its memories are its alone (stored under its id, and it recalls only those); shared: the common memory. */
  memoryScope: "own" | "shared";
  /** Tools offered to the agent: null allows every tool; patterns may end or begin with `*`. */
  toolsAllow: readonly string[] | null;
  toolsDeny: readonly string[];
  /** The Agent Skills it may use (null: every skill), for the skill tool to honour. */
  skills: readonly string[] | null;
}

/** Where an inbound message came from, for bindings. */
export interface BindingTarget {
  channel: string;
  /** The sender's platform id. */
  peer?: string | null;
  /** The chat id when the chat is a group or a channel (null in a direct message). */
  group?: string | null;
}
