// __PLUGIN_NAME__: an elizaOS-style plugin. Its actions become tools of the model, its providers add context to
// the prompt; `runtime` is elizaOS's IAgentRuntime as far as prx honours it (see prx's README).
import type { Action, Plugin, Provider } from "prx/worker-runtime";

const greet: Action = {
  name: "GREET",
  similes: ["SAY_HELLO"],
  description: "Greets someone by name",
  parameters: {
    type: "object",
    properties: { name: { type: "string", description: "who to greet" } },
    required: ["name"],
  },
  validate: async () => true,
  // the model's arguments arrive as `options` (and as JSON in message.content.text)
  handler: async (runtime, _message, _state, options) => {
    const name = typeof options?.name === "string" ? options.name.trim() : "there";
    const greeting = String((await runtime.getSetting("GREETING")) ?? "Hello");
    return { success: true, text: `${greeting}, ${name}!` };
  },
};

const weekday: Provider = {
  name: "WEEKDAY",
  description: "Today's weekday",
  get: async () => ({ text: `Today is ${new Date().toLocaleDateString("en", { weekday: "long" })}.` }),
};

export const plugin: Plugin = {
  name: "__PLUGIN_NAME__",
  description: "Greets people by name",
  actions: [greet],
  providers: [weekday],
};
