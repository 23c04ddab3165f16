/**
 * The built-in tools a host opens: their specs as the argument schemas give them (carried by the binary, computed
 * from source), each loading the tools themselves with the first call.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigSchema } from "../../src/config/schema.ts";
import { NoneMemory } from "../../src/memory/none.ts";
import { builtinToolSpecs, openBuiltinTools } from "../../src/tools/builtins/index.ts";
import { specsFromSchemas } from "../../src/tools/builtins/specs.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { ensureBinary, fakeProviderConfig, runPrx } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

setDefaultTimeout(60_000);

const context = (workspace: string) => ({ sessionId: "s", workspace, signal: new AbortController().signal });

describe("built-in tool catalog", () => {
  test("from source the specs are the argument schemas' own", async () => {
    expect(await builtinToolSpecs()).toEqual(specsFromSchemas());
  });

  test("each tool offers its spec and refusal at once and runs its implementation when called", async () => {
    const ws = tempWorkspace();
    try {
      const memory = new NoneMemory();
      const config = ConfigSchema.parse({}).tools;
      const tools = await openBuiltinTools({ config, workspace: ws.dir, memory: () => memory });
      expect(tools.map((tool) => tool.spec)).toEqual(specsFromSchemas());
      const byName = new Map(tools.map((tool) => [tool.spec.name, tool]));
      expect(byName.get("shell")!.unavailable).toContain("shell tool is disabled");
      expect(byName.get("http_request")!.unavailable).toContain("http_allowlist is empty");
      expect(byName.get("web_search")!.unavailable).toContain("[tools.web_search]");
      expect(byName.get("web_fetch")!.unavailable).toBeUndefined();
      expect(byName.get("file_read")!.unavailable).toBeUndefined();
      const written = await byName.get("file_write")!.execute({ path: "note.txt", content: "hello" }, context(ws.dir));
      expect(written.success).toBe(true);
      expect(readFileSync(join(ws.dir, "note.txt"), "utf8")).toBe("hello");
      const invalid = await byName.get("file_read")!.execute({ path: 3 }, context(ws.dir));
      expect(invalid).toMatchObject({ success: false });
      expect(invalid.error).toContain("invalid arguments for file_read");
    } finally {
      ws.cleanup();
    }
  });
});

describe("built-in tool catalog in the binary", () => {
  let fake: FakeServer;
  beforeAll(async () => {
    await ensureBinary();
    fake = startFakeOpenAI();
  }, 300_000);
  afterAll(async () => {
    await fake.stop();
  });

  test("the model is shown exactly the specs the argument schemas give", async () => {
    const extra =
      '[tools]\nshell_enabled = true\nshell_allowlist = ["ls"]\nhttp_allowlist = ["https://example.com/"]\n' +
      '[tools.web_search]\nbackend = "searxng"\nurl = "http://127.0.0.1:8888"\n' +
      '[tools.message_send.targets.desk]\nsession = "desk"\n';
    const ws = tempWorkspace(fakeProviderConfig(fake.url, extra));
    try {
      const run = await runPrx(["agent", "--workspace", ws.dir, "-m", "which tools?"]);
      expect(run.code).toBe(0);
      const request = fake.chatRequests().at(-1)!.body as { tools: { type: string; function: Record<string, unknown> }[] };
      const shown = request.tools.map((tool) => tool.function);
      expect(shown).toEqual(specsFromSchemas().map((spec) => ({ name: spec.name, description: spec.description, parameters: spec.parameters })));
    } finally {
      ws.cleanup();
    }
  });
});
