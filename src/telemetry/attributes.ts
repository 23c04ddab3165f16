/**
 * Attribute names: OpenTelemetry's GenAI semantic conventions (development status; the names prx emits are the
 * current ones, gen_ai.provider.name with gen_ai.system kept beside it for older backends) and prx's own.
 */
export const GenAi = {
  operation: "gen_ai.operation.name",
  provider: "gen_ai.provider.name",
  system: "gen_ai.system",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  temperature: "gen_ai.request.temperature",
  maxTokens: "gen_ai.request.max_tokens",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  finishReasons: "gen_ai.response.finish_reasons",
  agentName: "gen_ai.agent.name",
  agentId: "gen_ai.agent.id",
  conversation: "gen_ai.conversation.id",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
} as const;

export const Prx = {
  session: "prx.session.id",
  channel: "prx.channel",
  iterations: "prx.turn.iterations",
  toolCalls: "prx.turn.tool_calls",
  blocked: "prx.turn.blocked",
  plugin: "prx.plugin",
  capability: "prx.plugin.capability",
  capabilityType: "prx.plugin.capability_type",
  function: "prx.plugin.function",
  generation: "prx.plugin.generation",
  chat: "prx.channel.chat_id",
  parts: "prx.channel.parts",
  toolSuccess: "prx.tool.success",
} as const;
