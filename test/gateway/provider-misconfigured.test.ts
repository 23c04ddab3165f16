/**
 * A default provider whose `api_key_env` variable is not set: the gateway warns at start, /health reports the
 * provider as misconfigured, and a turn fails with 503 naming the variable (or, with a fallback, the offline
 * provider answers and says which provider failed, why, and how to fix it). A real gateway on 127.0.0.1.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { startGateway, type GatewayServer } from "../../src/gateway/server.ts";
import { json } from "./harness.ts";

let open: { host: AgentHost; gateway: GatewayServer; dir: string } | undefined;
afterEach(async () => {
  if (!open) return;
  await open.gateway.stop();
  await open.host.close();
  rmSync(open.dir, { recursive: true, force: true });
  open = undefined;
});

async function start(fallbacks: string[]): Promise<{ gateway: GatewayServer; printed: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), "prx-gw-nokey-"));
  const config = ConfigSchema.parse({
    default_provider: "openai",
    default_model: "gpt-4o-mini",
    // An address nothing listens on: no test may reach the network; the missing key fails first.
    providers: { openai: { base_url: "http://127.0.0.1:9/v1", api_key_env: "PRX_TEST_UNSET_KEY" } },
    reliability: { retries: 0, fallback_providers: fallbacks },
    gateway: { require_pairing: false },
  });
  const host = await openAgentHost({ workspace: dir, config, env: {} });
  const printed: string[] = [];
  const gateway = await startGateway({
    host,
    port: 0,
    handleSignals: false,
    version: "test",
    print: (line) => printed.push(line),
    accessLog: () => {},
  });
  open = { host, gateway, dir };
  return { gateway, printed };
}

const chat = (gateway: GatewayServer, body: Record<string, unknown>) =>
  fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], ...body }),
  });

describe("a default provider whose key variable is not set", () => {
  test("start warns, /health is 503 naming the variable, turns fail with 503 naming it", async () => {
    const { gateway, printed } = await start([]);
    expect(printed).toContainEqual(
      expect.stringMatching(/^prx gateway: warning: openai: environment variable PRX_TEST_UNSET_KEY is not set: every turn fails with 503/),
    );
    const health = await fetch(`${gateway.url}/health`);
    expect(health.status).toBe(503);
    const checks = (await json(health)).checks;
    expect(checks.providers.ok).toBe(false);
    expect(checks.providers.detail).toContain("openai/gpt-4o-mini is misconfigured");
    expect(checks.providers.detail).toContain("export PRX_TEST_UNSET_KEY=<your key>");

    const completion = await chat(gateway, {});
    expect(completion.status).toBe(503);
    expect((await json(completion)).error.message).toContain("PRX_TEST_UNSET_KEY is not set");
    // Streaming refuses before the stream starts: a status the client can act on, not an error inside a 200.
    const streamed = await chat(gateway, { stream: true });
    expect(streamed.status).toBe(503);
    expect((await json(streamed)).error.message).toContain("PRX_TEST_UNSET_KEY");
    const session = await fetch(`${gateway.url}/api/sessions/nokey/message`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "hi" }),
    });
    expect(session.status).toBe(503);
    expect((await json(session)).error).toMatchObject({ code: "CONFIG_INVALID", hint: expect.stringContaining("PRX_TEST_UNSET_KEY") });
    const sse = await fetch(`${gateway.url}/api/sessions/nokey/message`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ message: "hi" }),
    });
    expect(sse.status).toBe(503);
    expect((await json(sse)).error.message).toContain("PRX_TEST_UNSET_KEY");
  });

  test("with the offline fallback: /health is ready and says so; the reply names the failed provider and the fix", async () => {
    const { gateway, printed } = await start(["offline"]);
    expect(printed).toContainEqual(expect.stringContaining("turns are answered by the fallback provider offline"));
    const health = await fetch(`${gateway.url}/health`);
    expect(health.status).toBe(200);
    expect((await json(health)).checks.providers.detail).toContain("turns are answered by the fallback offline");
    const completion = await chat(gateway, {});
    expect(completion.status).toBe(200);
    const text: string = (await json(completion)).choices[0].message.content;
    expect(text).toStartWith("(offline) You said: hi");
    expect(text).toContain('provider "openai" failed: openai: environment variable PRX_TEST_UNSET_KEY is not set');
    expect(text).toContain("fix: export PRX_TEST_UNSET_KEY=<your key>");
    expect(text).not.toContain("prx init");
  });
});
