// __PLUGIN_NAME__: a tool the model calls as `__TOOL_NAME__`. `execute` gets the parsed arguments; what it returns
// is the tool's output (a string as it is, anything else as JSON); what it throws is a failed call the model sees.
import { config, defineTool, kv, log } from "@prx/kit";

interface Args {
  text: string;
}

export const toolExports = defineTool<Args>({
  name: "__TOOL_NAME__",
  description: "Counts the words of a text",
  parameters: {
    type: "object",
    properties: { text: { type: "string", description: "the text whose words to count" } },
    required: ["text"],
  },
  execute({ text }) {
    if (typeof text !== "string") throw new Error("text must be a string");
    const words = text.split(/\s+/).filter((word) => word.length > 0).length;
    const calls = kv.increment("calls");
    log.info(`counted ${words} words (call ${calls})`);
    return `${config.getOr("prefix", "words:")} ${words}`;
  },
});
