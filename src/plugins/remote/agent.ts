import { createHash } from "node:crypto";
import { z } from "zod";
import type { AgentConfig } from "../../config/schema.ts";

/**
 * Who the agent is, as remote plugins see it (`runtime.agentId`, `runtime.character`, `getConversationLength()`).
 * The host derives it from `[agent]` of config.toml when it starts a plugin and hands it over in the launch config.
 * (Only types come from the config schema here: the worker side imports this file and must not load that schema.)
 */
export const AgentIdentitySchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  bio: z.union([z.string(), z.array(z.string())]),
  system: z.string(),
  conversationLength: z.number().int().positive(),
});
export type AgentIdentity = z.infer<typeof AgentIdentitySchema>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * elizaOS 1.x `stringToUuid`: the first 16 bytes of SHA-1(encodeURIComponent(text)) with the variant bits set and
 * the version nibble cleared; a UUID is returned as it is. An agent named like an elizaOS character gets the same id.
 */
export function stringToUuid(text: string): string {
  if (UUID.test(text)) return text;
  const bytes = createHash("sha1").update(encodeURIComponent(text)).digest().subarray(0, 16);
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  bytes[6] = bytes[6]! & 0x0f;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** `[agent]` of config.toml -> the identity remote plugins see. elizaOS derives agentId from the name the same way. */
export function agentIdentity(agent: AgentConfig): AgentIdentity {
  return {
    id: stringToUuid(agent.name),
    name: agent.name,
    bio: agent.bio,
    system: agent.system_prompt,
    conversationLength: agent.max_history_messages,
  };
}
