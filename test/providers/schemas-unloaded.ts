/** What a fresh process reports after a provider's text answers (whole, streamed) and then a tool call. */
export interface SchemasLoadReport {
  whole: string;
  streamed: string;
  afterText: boolean;
  tool: string | undefined;
  afterTool: boolean;
}

/**
 * Runs a provider against its fake in a fresh process (the module keeping the loaded wire schemas is shared by every
 * test of a file) and reports whether its wire schemas were loaded after two text answers and after a tool call.
 */
export async function schemasLoadReport(options: {
  /** The provider's module, its class and the wire.ts function telling whether its schemas are loaded. */
  provider: { path: string; className: string; loaded: string };
  /** The fakes' starter for this vendor. */
  fake: string;
  /** Whether the tool call is streamed. */
  streamTool: boolean;
}): Promise<{ report: SchemasLoadReport; stderr: string; code: number }> {
  const { provider, fake, streamTool } = options;
  const script = `
    const { ${provider.className}: Provider } = await import(${JSON.stringify(import.meta.resolve(provider.path))});
    const { ${provider.loaded}: loaded } = await import(${JSON.stringify(import.meta.resolve("../../src/providers/wire.ts"))});
    const { ${fake}: startFake } = await import(${JSON.stringify(import.meta.resolve("../fakes/index.ts"))});
    const fake = startFake();
    const provider = new Provider({ name: "p", baseUrl: fake.url });
    const user = (content) => [{ role: "user", content }];
    const whole = await provider.chat({ model: "m", messages: user("hi") });
    const streamed = await provider.chat({ model: "m", messages: user("hi again"), onDelta: () => {} });
    const afterText = loaded() !== undefined;
    const tool = { name: "memory_store", description: "store", parameters: { type: "object", properties: {} } };
    const called = await provider.chat({ model: "m", messages: user("use tool memory_store {}"), tools: [tool]${streamTool ? ", onDelta: () => {}" : ""} });
    console.log(JSON.stringify({ whole: whole.text, streamed: streamed.text, afterText, tool: called.toolCalls[0]?.name, afterTool: loaded() !== undefined }));
    fake.stop();
  `;
  const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
  const [out, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { report: JSON.parse(out || "null") as SchemasLoadReport, stderr, code };
}

/** Two text answers then a tool call: the schemas load with the tool call only. */
export const SCHEMAS_LOADED_WITH_THE_TOOL_CALL: SchemasLoadReport = {
  whole: "echo: hi",
  streamed: "echo: hi again",
  afterText: false,
  tool: "memory_store",
  afterTool: true,
};
