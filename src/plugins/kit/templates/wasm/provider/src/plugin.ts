// __PLUGIN_NAME__: a provider. chat() gets the conversation; a string is the reply's text (or return
// { text, toolCalls } to call tools); a throw is a provider error (prx's fallbacks take over when configured).
import { defineProvider } from "@prx/kit";

export const providerExports = defineProvider({
  name: "__PLUGIN_NAME__",
  chat({ messages, model }) {
    const last = [...messages].reverse().find((message) => message.role === "user");
    if (!last) throw new Error("no user message to answer");
    return `(${model}) ${[...last.content].reverse().join("")}`;
  },
});
