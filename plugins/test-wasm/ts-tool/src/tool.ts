// Tool "ts_greet", built from TypeScript with jco's QuickJS backend (componentize-qjs) against prx:plugin/tool.
import kv from "prx:host/kv@0.1.0";
import log from "prx:host/log@0.1.0";

interface ToolResult {
  success: boolean;
  output: string;
  error: string | null;
}

function bytesToString(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += String.fromCharCode(b);
  return out;
}

function stringToBytes(text: string): Uint8Array {
  return new Uint8Array(Array.from(text, (c) => c.charCodeAt(0) & 0xff));
}

function getSpec() {
  return {
    name: "ts_greet",
    description: "Greets someone and counts greetings in kv",
    parametersSchema: JSON.stringify({ type: "object", properties: { name: { type: "string" } } }),
  };
}

function execute(args: string): ToolResult {
  let name = "world";
  try {
    const parsed = JSON.parse(args) as { name?: unknown };
    if (typeof parsed.name === "string") name = parsed.name;
  } catch {
    return { success: false, output: "", error: "args must be a JSON object" };
  }
  const previous = kv.get("count");
  const count = previous ? Number(bytesToString(previous)) + 1 : 1;
  kv.set("count", stringToBytes(String(count)));
  log.log("info", `greeting ${name}`);
  return { success: true, output: `hello ${name} #${count}`, error: null };
}

// The world exports the interface prx:plugin/tool-exports@0.1.0: its functions are members of this object.
export const toolExports = { getSpec, execute };
