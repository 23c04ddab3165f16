/**
 * Through the built binary: a running gateway writes data/gateway.json (0600) with its address and this run's control
 * token; `prx status` reports it (and, with none running, the workspace as configured); `prx plugins reload` and
 * `prx plugins install` reach the running gateway; the record goes when the gateway stops.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { ensureBinary, fakeProviderConfig, runPrx, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { waitFor } from "../helpers/wait.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

setDefaultTimeout(60_000);

const ECHO_TOOL = join(import.meta.dir, "..", "fixtures", "test-wasm", "echo-tool");
let fake: FakeServer;
const cleanups: (() => void)[] = [];
const gateways: RunningGateway[] = [];

beforeAll(async () => {
  await ensureBinary();
  fake = startFakeOpenAI();
}, 300_000);
afterAll(async () => {
  for (const gateway of gateways) {
    if (gateway.proc.exitCode === null) gateway.proc.kill("SIGKILL");
    await gateway.proc.exited;
  }
  await fake.stop();
  for (const cleanup of cleanups) cleanup();
});

function workspace(): string {
  const ws = tempWorkspace(fakeProviderConfig(fake.url, `[channels.tg]\nkind = "telegram"\ntoken_env = "PRX_TEST_NO_TOKEN"\n`), { prefix: "prx-status-" });
  cleanups.push(ws.cleanup);
  return ws.dir;
}

test("with no gateway running, status shows the workspace as configured", async () => {
  const dir = workspace();
  const result = await runPrx(["status", "--json", "-w", dir]);
  expect(result.code).toBe(0);
  const status = JSON.parse(result.stdout);
  expect(status).toMatchObject({
    config: { ok: true },
    gateway: { running: false },
    model: { provider: "fake", model: "fake-model" },
    channels: [{ name: "tg", state: "disabled" }],
    plugins: { count: 0 },
    usage_today: { calls: 0 },
  });
  const text = await runPrx(["status", "-w", dir]);
  expect(text.stdout).toContain("gateway    not running (start it with `prx gateway`)");
});

test("a running gateway is found, asked, and told of reloads and installs; its record goes when it stops", async () => {
  const dir = workspace();
  const gateway = await startGatewayBinary(dir, {}, "listening");
  gateways.push(gateway);
  const record = join(dir, "data", "gateway.json");
  // written once the gateway has started (just after its listening line)
  await waitFor(() => existsSync(record), "data/gateway.json");
  expect(statSync(record).mode & 0o777).toBe(0o600);
  const presence = JSON.parse(readFileSync(record, "utf8"));
  expect(presence).toMatchObject({ pid: gateway.proc.pid, url: gateway.url });
  expect(presence.control_token).toStartWith("prx_ctl_");

  const status = JSON.parse((await runPrx(["status", "--json", "-w", dir])).stdout);
  expect(status.gateway).toMatchObject({ running: true, pid: gateway.proc.pid, url: gateway.url });
  expect(status.gateway.error).toBeUndefined();
  expect(status.model).toEqual({ provider: "fake", model: "fake-model" });
  expect(status.plugins).toEqual({ count: 0, states: {} });

  // the control token is this run's: any other prx_ctl_ token is refused
  const wrong = await fetch(`${gateway.url}/api/status`, { headers: { authorization: "Bearer prx_ctl_0000" } });
  expect(wrong.status).toBe(401);

  const installed = await runPrx(["plugins", "install", ECHO_TOOL, "-w", dir]);
  expect(installed.code).toBe(0);
  expect(installed.stdout).toContain(`the running gateway (pid ${gateway.proc.pid} at ${gateway.url}) loaded it`);
  const listed = JSON.parse((await runPrx(["status", "--json", "-w", dir])).stdout);
  expect(listed.plugins.count).toBe(1);
  const reloaded = await runPrx(["plugins", "reload", "echo-tool", "-w", dir]);
  expect(reloaded.code).toBe(0);
  expect(reloaded.stdout).toContain(`in the running gateway: pid ${gateway.proc.pid}`);

  gateway.proc.kill("SIGTERM");
  await gateway.proc.exited;
  expect(existsSync(record)).toBe(false);
  expect(JSON.parse((await runPrx(["status", "--json", "-w", dir])).stdout).gateway).toEqual({ running: false });
});

test("a record left by a gateway that died is not taken for a running one", async () => {
  const dir = workspace();
  const gateway = await startGatewayBinary(dir, {}, "listening");
  gateways.push(gateway);
  await waitFor(() => existsSync(join(dir, "data", "gateway.json")), "data/gateway.json");
  gateway.proc.kill("SIGKILL");
  await gateway.proc.exited;
  const status = JSON.parse((await runPrx(["status", "--json", "-w", dir])).stdout);
  expect(status.gateway).toEqual({ running: false });
  const reload = await runPrx(["plugins", "reload", "--all", "-w", dir]);
  expect(reload.stdout).toContain("no gateway of this workspace is running");
});
