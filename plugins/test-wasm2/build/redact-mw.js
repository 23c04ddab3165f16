// plugins/test-wasm2/src/redact-mw.ts
var EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
var REDACTED = "[email redacted]";
function clean(text) {
  return typeof text === "string" ? text.replace(EMAIL, REDACTED) : text;
}
function process(stage, dataJson) {
  const data = JSON.parse(dataJson);
  switch (stage) {
    case "inbound":
    case "llm_response":
    case "outbound":
      data.text = clean(data.text);
      break;
    case "llm_request":
      for (const message of data.messages ?? [])
        message.content = clean(message.content);
      break;
    default:
      throw `unknown stage ${stage}`;
  }
  return JSON.stringify(data);
}
var middlewareExports = { process };
export {
  middlewareExports
};
