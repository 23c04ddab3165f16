/**
 * Claude Code (`@anthropic-ai/claude-code`, the coding-agent CLI from npm) runs one non-interactive task against the
 * built binary's POST /v1/messages, configured as its users point it at a custom endpoint: ANTHROPIC_BASE_URL and
 * ANTHROPIC_AUTH_TOKEN (a prx token), ANTHROPIC_MODEL naming a model prx serves. The model behind prx is the fake
 * OpenAI server, scripted to ask for Claude Code's Write tool once: the CLI runs it (a client tool, returned to it as
 * a tool_use block), sends the tool_result back, and prx's turn continues to the final answer.
 *
 * Not part of `bun test`: the CLI is a 400 MB native binary, kept out of the devDependencies. Run it with
 *   npm install --prefix /tmp/claude-code @anthropic-ai/claude-code@2.1.332
 *   bun run build.ts && bun test/gateway/claude-code-cli.ts /tmp/claude-code/node_modules/.bin/claude
 * It exits 0 when the file the task asked for exists with the content the model gave, 1 otherwise.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAI } from "../fakes/openai-server.ts";
import { startGatewayBinary } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

const cli = process.argv[2];
if (!cli || !existsSync(cli)) {
  console.error("usage: bun test/gateway/claude-code-cli.ts <path to the claude executable>");
  process.exit(2);
}

const CONTENT = "written by Claude Code through prx\n";
const fake = startFakeOpenAI({ models: ["fake-model"] });
const ws = tempWorkspace(
  `default_provider = "fake"
default_model = "fake-model"
[providers.fake]
kind = "openai-compatible"
base_url = "${fake.url}"
models = ["fake-model"]
[reliability]
retries = 0
[gateway]
max_body_bytes = 16777216
`,
  { prefix: "prx-claude-code-" },
);
const project = join(ws.dir, "project");
const home = join(ws.dir, "home");
mkdirSync(project);
mkdirSync(home);
const target = join(project, "hello.txt");

type Body = { messages: Array<{ role: string; content: unknown; tool_calls?: unknown[] }>; tools?: Array<{ function: { name: string } }> };
fake.script((request) => {
  if (request.path !== "/v1/chat/completions") return undefined;
  const body = request.body as Body;
  const answered = body.messages.filter((m) => m.role === "tool");
  if (answered.length > 0) return { type: "text", text: `Done: ${String(answered.at(-1)!.content).slice(0, 200)}` };
  const asked = body.messages.some((m) => m.role === "user" && JSON.stringify(m.content).includes("create hello.txt"));
  const offered = (body.tools ?? []).some((tool) => tool.function.name === "Write");
  if (asked && offered) return { type: "tool_calls", calls: [{ name: "Write", arguments: { file_path: target, content: CONTENT } }] };
  return { type: "text", text: "ok" };
});

const gateway = await startGatewayBinary(ws.dir);
let code = 1;
try {
  const paired = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
  const { token } = (await paired.json()) as { token: string };
  const run = Bun.spawn([cli, "-p", "Please create hello.txt in the current directory.", "--output-format", "json", "--allowedTools", "Write"], {
    cwd: project,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      ANTHROPIC_BASE_URL: gateway.url,
      ANTHROPIC_AUTH_TOKEN: token,
      ANTHROPIC_MODEL: "fake-model",
      ANTHROPIC_DEFAULT_HAIKU_MODEL: "fake-model",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    },
    stdout: "pipe",
    stderr: "pipe",
    timeout: 120_000,
  });
  const [stdout, stderr, exit] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
  const result = (() => {
    try {
      return JSON.parse(stdout) as { result?: string; is_error?: boolean; num_turns?: number };
    } catch {
      return null;
    }
  })();
  const written = existsSync(target) ? readFileSync(target, "utf8") : null;
  const calls = fake.chatRequests().length;
  console.log(`claude exited ${exit}; prx answered ${calls} model calls; result: ${JSON.stringify(result?.result ?? stdout.slice(0, 500))}`);
  if (stderr.trim() !== "") console.log(`claude stderr: ${stderr.trim().slice(0, 1000)}`);
  console.log(`hello.txt: ${written === null ? "(missing)" : JSON.stringify(written)}`);
  code = exit === 0 && result?.is_error === false && written === CONTENT && result.result?.startsWith("Done:") ? 0 : 1;
} finally {
  gateway.proc.kill();
  await gateway.proc.exited;
  await fake.stop();
  ws.cleanup();
}
console.log(code === 0 ? "PASS: Claude Code ran a task with a tool round trip against prx" : "FAIL");
process.exit(code);
