// Middleware "redact-email" for all four stages: replaces e-mail addresses in the text the stage carries
// (inbound.text, llm_request.messages[].content, llm_response.text, outbound.text) with REDACTED.
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
const REDACTED = "[email redacted]";

interface Message {
  content: string;
}

function clean(text: unknown): unknown {
  return typeof text === "string" ? text.replace(EMAIL, REDACTED) : text;
}

function process(stage: string, dataJson: string): string {
  const data = JSON.parse(dataJson) as { text?: unknown; messages?: Message[] };
  switch (stage) {
    case "inbound":
    case "llm_response":
    case "outbound":
      data.text = clean(data.text);
      break;
    case "llm_request":
      for (const message of data.messages ?? []) message.content = clean(message.content) as string;
      break;
    default:
      throw `unknown stage ${stage}`;
  }
  return JSON.stringify(data);
}

// The world exports the interface prx:plugin/middleware-exports@0.1.0: its functions are members of this object.
export const middlewareExports = { process };
