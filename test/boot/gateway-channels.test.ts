import { afterAll, beforeAll, expect, test } from "bun:test";
import { fakeProviderConfig, startGatewayBinary, tempWorkspace, type RunningGateway } from "../helpers/binary.ts";
import type { TempWorkspace } from "../helpers/workspace.ts";

/**
 * A gateway whose config.toml has no `[channels]` table starts without the channel supervisor (boot/gateway-channels.ts)
 * and answers what concerns channels as the supervisor would with none enabled.
 */
let ws: TempWorkspace;
let gateway: RunningGateway;

beforeAll(async () => {
  ws = tempWorkspace(fakeProviderConfig("http://127.0.0.1:9/v1"), { prefix: "prx-gateway-channels-" });
  gateway = await startGatewayBinary(ws.dir);
});

afterAll(async () => {
  gateway?.proc.kill("SIGTERM");
  await gateway?.proc.exited;
  ws?.cleanup();
});

test("without [channels], /health reports no channels enabled", async () => {
  const health = (await (await fetch(`${gateway.url}/health`)).json()) as { checks: Record<string, { ok: boolean; detail?: string }> };
  expect(health.checks.channels).toEqual({ ok: true, detail: "no channels enabled" });
});

test("without [channels], a channel's webhook is 404 naming no enabled channel, as the loaded supervisor answers it", async () => {
  for (let i = 0; i < 2; i++) {
    const response = await fetch(`${gateway.url}/channels/hook/webhook`, { method: "POST", body: "{}" });
    expect(response.status).toBe(404);
    expect(await response.text()).toContain('no enabled channel named \\"hook\\"');
  }
});

test("without [channels], /api/channels lists none and restarting one is 404", async () => {
  const token = await pair();
  const headers = { authorization: `Bearer ${token}` };
  expect(await (await fetch(`${gateway.url}/api/channels`, { headers })).json()).toEqual({ channels: [] });
  const restart = await fetch(`${gateway.url}/api/channels/hook/restart`, { method: "POST", headers });
  expect(restart.status).toBe(404);
});

async function pair(): Promise<string> {
  const response = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { token: string }).token;
}
