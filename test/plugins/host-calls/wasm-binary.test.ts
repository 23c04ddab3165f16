/**
 * The built gateway with a WASM guest over the host-call budget its plugin.toml sets (notes-tool: one memory.store,
 * then one events.publish per call; burst 1): the publish is dropped, and /api/plugins counts it under host_calls.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { appendFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { startFakeOpenAI, type FakeServer } from "../../fakes/openai-server.ts";
import { ensureBinary, fakeProviderConfig, startGatewayBinary, type RunningGateway } from "../../helpers/binary.ts";
import { waitFor } from "../../helpers/wait.ts";
import { tempWorkspace } from "../../helpers/workspace.ts";

const NOTES = resolve(import.meta.dir, "../../fixtures/test-wasm/notes-tool");
let fake: FakeServer;
let gateway: RunningGateway;
let cleanup = () => {};

beforeAll(async () => {
  await ensureBinary();
  fake = startFakeOpenAI();
  const ws = tempWorkspace(fakeProviderConfig(fake.url, `[plugins.notes-tool]\ngrant = ["memory", "events"]\n`), {
    plugins: [NOTES],
  });
  cleanup = ws.cleanup;
  // [resources] is the manifest's last table
  appendFileSync(join(ws.dir, "plugins", "notes-tool", "plugin.toml"), "max_host_calls_per_second = 1\nhost_call_burst = 1\n");
  gateway = await startGatewayBinary(ws.dir);
}, 300_000);

afterAll(async () => {
  gateway.proc.kill("SIGKILL");
  await gateway.proc.exited;
  await fake.stop();
  cleanup();
});

test("a guest call past its budget: the store is served, the publish after it is dropped and counted", async () => {
  const paired = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
  const { token } = (await paired.json()) as { token: string };
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const api = async () => {
    const { plugins } = (await (await fetch(`${gateway.url}/api/plugins`, { headers })).json()) as {
      plugins: Array<{ name: string; status: string; host_calls: { refused: number; last_refusal: string | null } | null }>;
    };
    return plugins.find((p) => p.name === "notes-tool")!;
  };
  // the plugin runtime may still be loading it
  const before = await waitFor(async () => {
    const info = await api();
    return info.host_calls && info;
  }, "notes-tool loaded");
  expect(before).toMatchObject({ status: "active", host_calls: { refused: 0, last_refusal: null } });
  const response = await fetch(`${gateway.url}/api/sessions/notes/message`, {
    method: "POST",
    headers,
    body: JSON.stringify({ message: 'use tool note {"text":"buy oat milk"}' }),
  });
  const text = await response.text();
  expect(response.status).toBe(200);
  // the guest is not told of a dropped publish: the tool answered the stored note's id
  expect(text).toContain("tool said: plugin:notes-tool:");
  const after = await api();
  expect(after.host_calls?.refused).toBe(1);
  expect(Number.isNaN(Date.parse(after.host_calls?.last_refusal ?? ""))).toBe(false);
}, 60_000);
