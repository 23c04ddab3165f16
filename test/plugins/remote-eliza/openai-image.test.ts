/**
 * The REAL `@elizaos/plugin-openai` from npm as the provider `remote:openai`, through the compiled binary: an image
 * given to `prx agent --image` goes to the plugin's IMAGE_DESCRIPTION model as elizaOS passes it (the plugin sends
 * it on to Chat Completions as an image_url part), and its description reaches the plugin's TEXT_LARGE model (the
 * AI SDK's default, the Responses API). Both upstreams are fakes answering as OpenAI documents, behind one base URL.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { IMAGE_DESCRIPTION_PROMPT } from "../../../src/plugins/remote/image-description.ts";
import { startFakeOpenAI, type FakeOpenAIServer } from "../../fakes/openai-server.ts";
import { serveOneOpenAIBaseUrl, startFakeOpenAIResponses, type FakeServer } from "../../fakes/openai-responses-server.ts";
import { ensureBinary, runPrx } from "../../helpers/binary.ts";
import { tempWorkspace } from "../../helpers/workspace.ts";
import { png } from "../../media/samples.ts";
import { CORE_VERSION, installFromNpm, type StarterInstall } from "./npm-starter.ts";

setDefaultTimeout(120_000);

const PLUGIN_VERSION = "1.6.0";
const install: StarterInstall = installFromNpm([`@elizaos/plugin-openai@${PLUGIN_VERSION}`, `@elizaos/core@${CORE_VERSION}`]);
if ("skip" in install) console.warn(`SKIPPED the @elizaos/plugin-openai tests: ${install.skip}`);

let chat: FakeOpenAIServer;
let responses: FakeServer;
let router: ReturnType<typeof Bun.serve>;
const cleanups: Array<() => void> = [];

beforeAll(async () => {
  await ensureBinary();
  chat = startFakeOpenAI();
  responses = startFakeOpenAIResponses();
  router = serveOneOpenAIBaseUrl(chat.url, responses.url);
}, 600_000);

afterAll(async () => {
  router?.stop(true);
  await chat?.stop();
  await responses?.stop();
  for (const cleanup of cleanups) cleanup();
});

function workspace(nodeModules: string): string {
  const ws = tempWorkspace("");
  cleanups.push(ws.cleanup);
  const dir = join(ws.dir, "plugins", "openai");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "plugin.toml"),
    `[plugin]\nname = "openai"\nversion = "${PLUGIN_VERSION}"\nruntime = "remote"\n\n[remote]\nentry = "worker.js"\ntransport = "worker"\nready_timeout_ms = 30000\n\n` +
      `[remote.settings]\nOPENAI_API_KEY = "sk-test"\nOPENAI_BASE_URL = "http://127.0.0.1:${router.port}/v1"\nOPENAI_LARGE_MODEL = "fake-model"\nOPENAI_IMAGE_DESCRIPTION_MODEL = "fake-vision"\n`,
  );
  writeFileSync(join(dir, "worker.js"), `import plugin from "@elizaos/plugin-openai";\nimport { bootstrap } from "@elizaos/plugin-worker-runtime";\nbootstrap(plugin);\n`);
  symlinkSync(nodeModules, join(dir, "node_modules"), "dir");
  return ws.dir;
}

describe(`@elizaos/plugin-openai ${PLUGIN_VERSION} from npm as remote:openai`, () => {
  test.skipIf("skip" in install)("an image is described by the plugin's IMAGE_DESCRIPTION model and the description reaches TEXT_LARGE", async () => {
    if ("skip" in install) throw new Error(install.skip);
    const root = workspace(install.nodeModules);
    const image = join(root, "cat.png");
    writeFileSync(image, png(32, 24));
    chat.enqueue({ type: "text", text: "Title: A grey cat\nA grey cat asleep on a red mat." });
    const result = await runPrx(
      ["agent", "-m", "what is in this picture?", "--image", image, "--provider", "remote:openai", "--model", "TEXT_LARGE", "-w", root],
      { env: { PRX_LOG: "error" }, timeoutMs: 90_000 },
    );
    expect(result.code, result.stderr).toBe(0);

    // IMAGE_DESCRIPTION: the plugin's own Chat Completions request, with the image as a data URL
    const described = chat.chatRequests().find((request) => request.body.model === "fake-vision")!;
    expect(described).toBeDefined();
    const parts = described.body.messages[0].content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
    expect(parts[0]).toEqual({ type: "text", text: IMAGE_DESCRIPTION_PROMPT });
    expect(parts[1]!.image_url!.url).toStartWith("data:image/png;base64,");

    // TEXT_LARGE: the user's words and the description, through the Responses API
    const asked = JSON.stringify(responses.chatRequests().at(-1)!.body);
    expect(asked).toContain("what is in this picture?");
    expect(asked).toContain("[image: A grey cat: A grey cat asleep on a red mat.]");
    expect(result.stdout).toContain("[image: A grey cat: A grey cat asleep on a red mat.]");
  });
});
