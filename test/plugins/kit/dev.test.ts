/**
 * `prx plugins dev` through the binary against a running `prx gateway` of the same workspace: the start installs and
 * loads the plugin, a change rebuilds and hot-reloads it (the next turn uses it), a build error is printed with
 * file:line while the gateway keeps serving the last good build, another plugin of the name is not replaced without
 * --force, and the dev token is revoked when dev stops.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAI, type FakeServer } from "../../fakes/index.ts";
import { BINARY, ensureBinary, fakeProviderConfig, runPrx, startGatewayBinary, type RunningGateway } from "../../helpers/binary.ts";
import { scaffoldPlugin } from "../../../src/plugins/kit/scaffold.ts";
import { lineReader, TEST_KIT_CACHE, tempDir } from "./helpers.ts";

setDefaultTimeout(60_000);

const ENV = { PRX_KIT_CACHE: TEST_KIT_CACHE, PRX_LOG: "error" };
const root = tempDir("prx-kit-dev-");
const ws = join(root.dir, "ws");
let fake: FakeServer;
let gateway: RunningGateway;
let token: string;

beforeAll(async () => {
  await ensureBinary();
  fake = startFakeOpenAI();
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, "config.toml"), fakeProviderConfig(fake.url));
  gateway = await startGatewayBinary(ws, ENV);
  token = JSON.parse((await runPrx(["gateway", "token", "create", "--json", "-w", ws], { env: ENV })).stdout).token;
}, 120_000);
afterAll(async () => {
  gateway.proc.kill();
  await gateway.proc.exited;
  await fake.stop();
  root.remove();
});

/** `prx plugins dev` running, with its output read line by line. */
function startDev(dir: string, extra: string[] = [], url: string | null = gateway.url, workspace = ws) {
  const proc = Bun.spawn([BINARY, "plugins", "dev", dir, "-w", workspace, ...(url === null ? [] : ["--url", url]), ...extra], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...ENV },
    stdout: "pipe",
    stderr: "pipe",
  });
  const { lines, next } = lineReader(proc.stdout as ReadableStream<Uint8Array>);
  return { proc, lines, next };
}

/** One turn through the gateway's OpenAI-compatible API, as a client makes it. */
async function turn(text: string): Promise<string> {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "fake-model", messages: [{ role: "user", content: text }] }),
  });
  const body = (await response.json()) as { choices: { message: { content: string } }[] };
  return body.choices[0]!.message.content;
}

describe("prx plugins dev", () => {
  test("installs and loads at the start, hot-reloads every change, keeps the last good build on a build error", async () => {
    const dir = scaffoldPlugin("live-tool", "tool", join(root.dir, "live-tool")).dir;
    const source = join(dir, "src/plugin.ts");
    const dev = startDev(dir);
    try {
      expect(await dev.next(/^\[dev\] start: /)).toMatch(/^\[dev\] start: built in .*; reloaded: generation \d+ \(rebuilt\)/);
      expect(await turn('use tool live_tool {"text":"a b"}')).toBe("tool said: words: 2");

      const from = dev.lines.length;
      writeFileSync(source, readFileSync(source, "utf8").replace("${words}`", "${words}!`"));
      expect(await dev.next(/^\[dev\] .*changed/, from)).toMatch(/^\[dev\] src\/plugin\.ts changed: built in .*; reloaded: generation \d+ \(rebuilt\), .* after the change \(install .*, reload .*\)$/);
      expect(await turn('use tool live_tool {"text":"a b c"}')).toBe("tool said: words: 3!");

      const broken = dev.lines.length;
      writeFileSync(source, readFileSync(source, "utf8").replace("const words =", "const words = ("));
      expect(await dev.next(/^\[dev\] .*changed/, broken)).toBe("[dev] src/plugin.ts changed: build failed; the gateway keeps serving the last good build");
      await dev.next(/src\/plugin\.ts:\d+:\d+: error: /, broken);
      expect(await turn('use tool live_tool {"text":"still served"}')).toBe("tool said: words: 2!");
    } finally {
      dev.proc.kill("SIGINT");
      await dev.proc.exited;
    }
    expect(dev.lines.at(-1)).toMatch(/^\[dev\] stopped; token \S+ revoked$/);
    const id = /token (\S+) revoked/.exec(dev.lines.at(-1)!)![1];
    const tokens = JSON.parse((await runPrx(["gateway", "token", "list", "--json", "-w", ws], { env: ENV })).stdout) as { id: string; revoked: boolean }[];
    expect(tokens.find((t) => t.id === id)?.revoked).toBe(true);
  });

  test("without --url it finds the workspace's running gateway (no token made); another workspace's gateway is named as such", async () => {
    const dir = scaffoldPlugin("found-tool", "tool", join(root.dir, "found-tool")).dir;
    const dev = startDev(dir, [], null);
    try {
      expect(await dev.next(/^\[dev\] found-tool: watching/)).toContain(`gateway ${gateway.url}`);
      expect(await dev.next(/^\[dev\] start: /)).toMatch(/reloaded: generation \d+ \(rebuilt\)/);
    } finally {
      dev.proc.kill("SIGINT");
      await dev.proc.exited;
    }
    expect(dev.lines.at(-1)).toBe("[dev] stopped");
    const tokens = JSON.parse((await runPrx(["gateway", "token", "list", "--json", "-w", ws], { env: ENV })).stdout) as { name: string }[];
    expect(tokens.some((t) => t.name.includes("found-tool"))).toBe(false);

    const otherWs = join(root.dir, "other-ws");
    mkdirSync(otherWs, { recursive: true });
    writeFileSync(join(otherWs, "config.toml"), fakeProviderConfig(fake.url));
    const other = startDev(dir, [], gateway.url, otherWs);
    try {
      const line = await other.next(/^\[dev\] start: /);
      expect(line).toContain(`the gateway at ${gateway.url} does not accept this workspace's token: it serves another workspace`);
    } finally {
      other.proc.kill("SIGINT");
      await other.proc.exited;
    }
  });

  test("does not replace a plugin of the same name it did not install, unless --force", async () => {
    const other = scaffoldPlugin("taken", "cron", join(root.dir, "taken-original")).dir;
    expect((await runPrx(["plugins", "install", other, "-w", ws], { env: ENV })).code).toBe(0);
    const dir = scaffoldPlugin("taken", "cron", join(root.dir, "taken-dev")).dir;
    const dev = startDev(dir);
    try {
      expect(await dev.next(/^\[dev\] start: /)).toBe("[dev] start: install failed; the gateway keeps serving the last good build");
      await dev.next(/is not the dev copy of .*\n?|hint: `prx plugins dev --force` replaces it/);
    } finally {
      dev.proc.kill("SIGINT");
      await dev.proc.exited;
    }
    const forced = startDev(dir, ["--force"]);
    try {
      expect(await forced.next(/^\[dev\] start: /)).toMatch(/reloaded: generation \d+ \(rebuilt\)/);
    } finally {
      forced.proc.kill("SIGINT");
      await forced.proc.exited;
    }
  });
});
