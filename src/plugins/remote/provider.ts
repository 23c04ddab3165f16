import { PrxError } from "../../core/errors.ts";
import type { ChatRequest, ChatResponse, Provider } from "../../providers/types.ts";
import { describeImages, IMAGE_DESCRIPTION_MODEL } from "./image-description.ts";
import type { RemotePluginHandle } from "./types.ts";

const PREFERRED = ["TEXT_LARGE", "TEXT_SMALL", "TEXT_REASONING_LARGE", "TEXT_REASONING_SMALL"];

/** A plugin's `models` as the provider `remote:<plugin>`. request.model picks a model type when it names one. */
export function createRemoteProvider(handle: RemotePluginHandle): Provider {
  const pick = (wanted: string): string => {
    const types = handle.modelTypes();
    if (types.includes(wanted)) return wanted;
    const preferred = PREFERRED.find((t) => types.includes(t));
    if (preferred) return preferred;
    throw new PrxError("PROVIDER_UNKNOWN", `remote plugin ${handle.name} serves no text model`, {
      hint: `its models are: ${types.join(", ") || "none"}; choose another provider`,
    });
  };
  return {
    name: `remote:${handle.name}`,
    async chat(request: ChatRequest): Promise<ChatResponse> {
      const modelType = pick(request.model);
      const describe = handle.modelTypes().includes(IMAGE_DESCRIPTION_MODEL)
        ? (params: { imageUrl: string; prompt: string }) => handle.useModel(IMAGE_DESCRIPTION_MODEL, params, request.signal)
        : null;
      const messages = await describeImages(request.messages, describe);
      const system = messages
        .filter((m) => m.role === "system")
        .map((m) => m.content)
        .join("\n");
      const lastUser = [...messages].reverse().find((m) => m.role === "user");
      const params: Record<string, unknown> = {
        prompt: lastUser?.content ?? "",
        messages: messages.map((m) => ({ role: m.role, content: m.content })),
      };
      if (system) params.system = system;
      if (request.temperature !== undefined) params.temperature = request.temperature;
      if (request.maxTokens !== undefined) params.maxTokens = request.maxTokens;
      const result = await handle.useModel(modelType, params, request.signal);
      const text =
        typeof result === "string"
          ? result
          : typeof (result as { text?: unknown })?.text === "string"
            ? (result as { text: string }).text
            : JSON.stringify(result);
      request.onDelta?.({ type: "text", text });
      return { text, toolCalls: [], model: modelType, provider: `remote:${handle.name}`, finishReason: "stop" };
    },
    async listModels() {
      return handle.modelTypes();
    },
    async probe() {
      const status = handle.status();
      // an idle plugin is healthy: its first call starts it
      return status.state === "ready" || status.state === "idle"
        ? null
        : `remote plugin ${handle.name} is ${status.state}: ${status.lastError ?? ""}`;
    },
  };
}
