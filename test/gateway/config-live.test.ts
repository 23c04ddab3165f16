import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runPrx, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { startFakeOpenAI, type FakeOpenAIServer } from "../fakes/openai-server.ts";
import { FIXTURE } from "../mcp/helpers.ts";

/** config.toml of a running gateway edited by hand, by `prx config set` and on demand: applied, refused or named. */

const dir = mkdtempSync(join(tmpdir(), "prx-live-config-"));
const configPath = join(dir, "config.toml");
let fake: FakeOpenAIServer;
let gateway: RunningGateway;
let token: string;

interface Outcome {
  ok: boolean;
  generation: number;
  applied: string[];
  notes: string[];
  restart: string[];
  error: { message: string } | null;
}

async function api(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${gateway.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } });
}

async function last(): Promise<Outcome | null> {
  return ((await (await api("/api/config/reload")).json()) as { last: Outcome | null }).last;
}

/** The watch applies an edit on its own: wait (bounded by the test's timeout) until the last outcome passes `done`. */
async function until(done: (outcome: Outcome) => boolean): Promise<Outcome> {
  for (;;) {
    const outcome = await last();
    if (outcome && done(outcome)) return outcome;
    await Bun.sleep(20);
  }
}

async function turn(session: string, message: string): Promise<string> {
  const response = await api(`/api/sessions/${session}/message`, { method: "POST", body: JSON.stringify({ message }) });
  expect(response.status).toBe(200);
  return String(((await response.json()) as { reply: string }).reply);
}

const base = `[memory]\nbackend = "none"\n\n[autonomy]\nlevel = "read_only"\n`;
const withFake = () => `default_provider = "fake"\ndefault_model = "fake-model"\n\n[providers.fake]\nbase_url = "${fake.url}"\n\n${base}`;

beforeAll(async () => {
  fake = startFakeOpenAI();
  writeFileSync(configPath, base);
  // a plugin that needs a grant config.toml does not give yet
  mkdirSync(join(dir, "plugins"));
  cpSync(join(import.meta.dir, "../fixtures/test-wasm/http-tool"), join(dir, "plugins", "http-tool"), { recursive: true });
  gateway = await startGatewayBinary(dir, { HOOK_SECRET: "live-secret", PRX_LOG: "info" }, "listening");
  const presence = join(dir, "data", "gateway.json");
  while (!existsSync(presence)) await Bun.sleep(10);
  token = (JSON.parse(readFileSync(presence, "utf8")) as { control_token: string }).control_token;
});

afterAll(async () => {
  if (process.env.LIVE_CONFIG_DEBUG) console.error(gateway?.stderr.text());
  gateway?.proc.kill();
  await gateway?.proc.exited;
  await fake?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("config.toml of a running gateway", () => {
  test("an edit adding a provider is applied by the watch: the new provider's model answers the next turn", async () => {
    expect(await turn("live-1", "hello")).not.toContain("echo: hello");
    writeFileSync(configPath, withFake());
    const outcome = await until((o) => o.generation === 2);
    expect(outcome.ok).toBe(true);
    expect(outcome.applied).toContain("providers.fake");
    expect(outcome.applied).toContain("default_provider");
    expect(await turn("live-1", "hello")).toBe("echo: hello");
  }, 20_000);

  test("a tool refused by autonomy runs once `prx config set` raises the level; the CLI says what the gateway did", async () => {
    const target = join(dir, "written.txt");
    const call = `use tool file_write {"path": "written.txt", "content": "live"}`;
    await turn("live-2", call);
    expect(existsSync(target)).toBe(false);
    const set = await runPrx(["config", "set", "autonomy.level", "full", "-w", dir], { env: { HOME: dir } });
    expect(set.stderr).toBe("");
    expect(set.code).toBe(0);
    expect(set.stdout).toContain("applied it: autonomy");
    await turn("live-2", call);
    expect(readFileSync(target, "utf8")).toBe("live");
  }, 20_000);

  test("an invalid edit is refused with file:line in the log and /health while the old config keeps serving", async () => {
    const before = (await last())!.generation;
    writeFileSync(configPath, `${withFake()}\n[tools]\nshell_timeout_ms = "soon"\n`);
    const outcome = await until((o) => !o.ok);
    expect(outcome.generation).toBe(before);
    expect(outcome.error!.message).toContain(`${configPath}:14`);
    const health = await fetch(`${gateway.url}/health`);
    expect(health.status).toBe(200);
    const detail = ((await health.json()) as { checks: Record<string, { detail?: string }> }).checks.config!.detail!;
    expect(detail).toContain("refused");
    expect(detail).toContain(`${configPath}:14`);
    const refused = `config.toml not applied; the running configuration stays (generation ${before}): ${configPath}:14`;
    expect(await gateway.stderr.line(refused, { timeoutMs: 10_000 })).toContain(refused);
    expect(await turn("live-3", "still here")).toBe("echo: still here");
    const doctor = await runPrx(["doctor", "-w", dir], { env: { HOME: dir } });
    expect(doctor.stdout).toContain(`FAIL config: ${configPath}:14`);
    expect(doctor.stdout).toContain(`still serves generation ${before}`);
  }, 20_000);

  test("a cross-field error (postgres memory on SQLite storage) is refused the same way", async () => {
    writeFileSync(configPath, withFake().replace('backend = "none"', 'backend = "postgres"'));
    const outcome = await until((o) => !o.ok && o.error!.message.includes("memory.backend"));
    expect(outcome.error!.message).toContain('[storage] backend = "postgres"');
  }, 20_000);

  test("a listen-address change is named as needing a restart; POST /api/config/reload answers the same", async () => {
    writeFileSync(configPath, `${withFake()}\n[gateway]\nport = 1\n`);
    const outcome = await until((o) => o.ok && o.restart.includes("gateway.port"));
    const response = await api("/api/config/reload", { method: "POST" });
    expect(response.status).toBe(200);
    expect(((await response.json()) as Outcome).restart).toEqual(["gateway.port"]);
    const health = (await (await fetch(`${gateway.url}/health`)).json()) as { checks: Record<string, { detail?: string }> };
    expect(health.checks.config!.detail).toContain("restart to apply: gateway.port");
    expect(outcome.applied).not.toContain("gateway.port");
    const effective = (await (await api("/api/config")).json()) as { config: { gateway: { port: number } } };
    expect(effective.config.gateway.port).not.toBe(1);
    const restart = "gateway.port changed; restart the process to apply it";
    expect(await gateway.stderr.line(restart, { timeoutMs: 10_000 })).toContain(restart);
    const doctor = await runPrx(["doctor", "-w", dir], { env: { HOME: dir } });
    expect(doctor.stdout).toContain("restart it to apply: gateway.port");
  }, 20_000);

  test("a rate limit edited in config.toml applies to the next request without a restart; the port still waits for one", async () => {
    const created = await runPrx(["gateway", "token", "create", "--name", "burst", "-w", dir], { env: { HOME: dir } });
    expect(created.code).toBe(0);
    const burst = created.stdout.trim();
    const status = async () => (await fetch(`${gateway.url}/api/status`, { headers: { authorization: `Bearer ${burst}` } })).status;
    writeFileSync(configPath, `${withFake()}\n[gateway]\nport = 1\nrate_limit_per_token_per_minute = 3\n`);
    const outcome = await until((o) => o.ok && o.applied.includes("gateway.rate_limit_per_token_per_minute"));
    expect(outcome.restart).toEqual(["gateway.port"]);
    expect(outcome.applied).not.toContain("gateway.port");
    // a bucket of 3 refilled at 3 a minute: three requests in a row pass, the fourth is refused naming the new limit
    expect([await status(), await status(), await status()]).toEqual([200, 200, 200]);
    const refused = await fetch(`${gateway.url}/api/status`, { headers: { authorization: `Bearer ${burst}` } });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain("rate limit of 3 requests per minute");
    const health = (await (await fetch(`${gateway.url}/health`)).json()) as { checks: Record<string, { detail?: string }> };
    expect(health.checks.config!.detail).toContain("restart to apply: gateway.port");
    expect(health.checks.config!.detail).not.toContain("rate_limit");

    writeFileSync(configPath, `${withFake()}\n[gateway]\nport = 1\nrate_limit_per_token_per_minute = 1000\n`);
    await until((o) => o.ok && o.generation > outcome.generation);
    expect(await status()).toBe(200);
  }, 20_000);

  test("an MCP server added to config.toml is offered to the next turn, and withdrawn once removed", async () => {
    const full = withFake().replace('level = "read_only"', 'level = "full"');
    const server = `\n[mcp.servers.fx]\ncommand = "${process.execPath}"\nargs = ["${FIXTURE}"]\n`;
    writeFileSync(configPath, full + server);
    const added = await until((o) => o.applied.includes("mcp.servers.fx"));
    expect(added.notes).toContain("MCP server fx added");
    const call = `use tool mcp__fx__echo {"text": "through mcp"}`;
    for (;;) {
      // the server's tools are learnt in the background on the first listing
      const reply = await turn("live-4", call);
      if (reply === "tool said: through mcp") break;
      await Bun.sleep(50);
    }
    writeFileSync(configPath, full);
    const removed = await until((o) => o.notes.includes("MCP server fx removed"));
    expect(removed.ok).toBe(true);
    const listed = (await (await api("/api/mcp")).json()) as { servers: Array<{ name: string }> };
    expect(listed.servers.map((entry) => entry.name)).not.toContain("fx");
  }, 30_000);

  test("a channel enabled in config.toml starts, applies the gateway's later edits in its own process, and stops once disabled", async () => {
    const hook = `\n[channels.hook]\nkind = "webhook"\nenabled = true\nsecret_env = "HOOK_SECRET"\ndm_policy = "open"\n`;
    writeFileSync(configPath, withFake() + hook);
    const started = await until((o) => o.notes.includes("channel hook started"));
    expect(started.applied).toContain("channels.hook");
    const channels = async () => ((await (await api("/api/channels")).json()) as { channels: Array<{ name: string; state: string }> }).channels;
    while (!(await channels()).some((c) => c.name === "hook" && c.state === "running")) await Bun.sleep(20);
    const seen = gateway.stderr.mark();
    writeFileSync(configPath, `${withFake()}${hook}\n[compaction]\nkeep_recent = 0.25\n`);
    await until((o) => o.applied.includes("compaction"));
    await gateway.stderr.line(/channel\.hook.*config\.toml applied: compaction/, { after: seen });
    writeFileSync(configPath, withFake() + hook.replace("enabled = true", "enabled = false"));
    await until((o) => o.notes.includes("channel hook stopped"));
    expect(await channels()).toEqual([]);
  }, 30_000);

  test("a grant added to config.toml reloads the plugin that needed it", async () => {
    const status = async () => ((await (await api("/api/plugins/http-tool")).json()) as { status: string }).status;
    expect(await status()).toBe("error");
    writeFileSync(configPath, `${withFake()}\n[plugins.http-tool]\ngrant = ["http-outbound"]\n`);
    const outcome = await until((o) => o.applied.includes("plugins.http-tool"));
    expect(outcome.notes.some((note) => note.startsWith("plugins reloaded"))).toBe(true);
    // a plugin still starting when the reload is applied joins the generation once it is up
    while ((await status()) === "starting") await Bun.sleep(20);
    expect(await status()).toBe("active");
  }, 30_000);
});
