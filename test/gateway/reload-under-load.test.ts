/**
 * The built gateway under tool traffic while one plugin is reloaded 100 times: 4 clients call tools of the reloaded
 * plugin and of another one; no request fails, and the other plugin is carried over by every reload.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { cpSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { ensureBinary, fakeProviderConfig, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

// each test runs the built binary several times; a loaded machine needs more than the default 5 s
setDefaultTimeout(60_000);

const RELOADS = 100;
const CLIENTS = 4;
const WASM_PLUGINS = resolve(import.meta.dir, "../fixtures/test-wasm");

let fake: FakeServer;
let gateway: RunningGateway;
let cleanup = () => {};

beforeAll(async () => {
  await ensureBinary();
  fake = startFakeOpenAI();
  const ws = tempWorkspace(fakeProviderConfig(fake.url, "[reliability]\nretries = 0\n[gateway]\nrate_limit_per_minute = 100000\nrate_limit_per_token_per_minute = 100000\n"));
  cleanup = ws.cleanup;
  mkdirSync(join(ws.dir, "plugins"), { recursive: true });
  for (const name of ["echo-tool", "kv-tool"]) cpSync(join(WASM_PLUGINS, name), join(ws.dir, "plugins", name), { recursive: true });
  gateway = await startGatewayBinary(ws.dir);
}, 300_000);

afterAll(async () => {
  gateway.proc.kill("SIGKILL");
  await gateway.proc.exited;
  await fake.stop();
  cleanup();
});

test(`${RELOADS} reloads of one plugin while ${CLIENTS} clients call tools of it and of another: no request fails`, async () => {
  const paired = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
  const { token } = (await paired.json()) as { token: string };
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  let reloading = true;
  const failures: string[] = [];
  let turns = 0;
  const client = async (id: number) => {
    for (let n = 0; reloading; n++) {
      const text = n % 2 === 0 ? `use tool echo_upper {"text":"c${id}-${n}"}` : `use tool remember {"value":"c${id}-${n}"}`;
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers,
        body: JSON.stringify({ model: "fake-model", messages: [{ role: "user", content: text }] }),
      });
      const body = (await response.json()) as { choices?: { message: { content: string } }[] };
      const reply = body.choices?.[0]?.message.content ?? JSON.stringify(body);
      if (response.status !== 200 || !reply.startsWith("tool said:") || /failed|no longer available|unknown tool/.test(reply)) {
        failures.push(`${response.status} ${reply}`);
      }
      turns++;
    }
  };
  const clients = Array.from({ length: CLIENTS }, (_, id) => client(id));
  const carried: string[] = [];
  for (let i = 0; i < RELOADS; i++) {
    const response = await fetch(`${gateway.url}/api/plugins/echo-tool/reload`, { method: "POST", headers });
    const body = (await response.json()) as { plugins?: { name: string; outcome: string }[] };
    if (response.status !== 200) failures.push(`reload ${i}: ${response.status} ${JSON.stringify(body)}`);
    carried.push(body.plugins?.find((p) => p.name === "kv-tool")?.outcome ?? "missing");
  }
  reloading = false;
  await Promise.all(clients);
  expect(failures).toEqual([]);
  expect(carried.every((outcome) => outcome === "carried_over")).toBe(true);
  expect(turns).toBeGreaterThan(CLIENTS);
}, 120_000);
