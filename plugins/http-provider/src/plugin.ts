// http-provider: one POST <base_url>/chat/completions per chat call. The PRX provider contract passes roles and
// texts (no tool definitions), so tool results go to the API as user messages.
import { config, defineProvider, log } from "@prx/kit";
import { http } from "@prx/kit/http";

interface Completion {
  choices?: { message?: { content?: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[] } }[];
}

export const providerExports = defineProvider({
  name: "http-provider",
  chat({ messages, model, temperature }) {
    const base = config.getOr("base_url", "http://127.0.0.1:11434/v1").replace(/\/+$/, "");
    const apiKey = config.getOr("api_key", "");
    const body = {
      model: config.getOr("model", "") || model,
      temperature,
      messages: messages.map((m) => (m.role === "tool" ? { role: "user", content: `[tool result] ${m.content}` } : { role: m.role, content: m.content })),
    };
    const response = http.postJson(`${base}/chat/completions`, body, apiKey ? { authorization: `Bearer ${apiKey}` } : {});
    if (!response.ok) throw new Error(`${base} answered ${response.status}: ${response.text().slice(0, 300)}`);
    const message = response.json<Completion>().choices?.[0]?.message;
    if (!message) throw new Error(`${base} answered without a choice`);
    log.debug(`${body.model}: ${response.body.length} bytes`);
    return {
      text: message.content ?? null,
      toolCalls: (message.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })),
    };
  },
});
