/** Fake LLM provider servers for tests and benchmarks (127.0.0.1, port 0 unless told). */
export { startFakeOpenAI, defaultReply } from "./openai-server.ts";
export { startFakeAnthropic, defaultAnthropicReply } from "./anthropic-server.ts";
export type {
  FakeServer,
  FakeServerOptions,
  FakeStep,
  RecordedRequest,
  ScriptedToolCall,
  ScriptHandler,
} from "./common.ts";
