/** In-process channel tests: a temporary workspace whose provider is the fake OpenAI server. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startChannelProcess, type ChannelProcessLimits, type RunningChannel } from "../../src/channels/process.ts";
import type { Channel } from "../../src/channels/types.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";

export interface ChannelHarness {
  dir: string;
  provider: FakeServer;
  running: RunningChannel[];
  /** `limits`: shorter time limits passed to the process. */
  start(name: string, env?: Record<string, string>, limits?: Partial<ChannelProcessLimits>): Promise<RunningChannel>;
  close(): Promise<void>;
}

/**
 * `channels` is the TOML of the [channels.*] tables; the provider answers "echo: <text>" unless scripted.
 * `providerKeys`: more keys of [providers.fake] (one per line).
 */
export function channelHarness(channels: string, providerKeys = ""): ChannelHarness {
  const provider = startFakeOpenAI();
  const dir = mkdtempSync(join(tmpdir(), "prx-channel-"));
  writeFileSync(
    join(dir, "config.toml"),
    `default_provider = "fake"\ndefault_model = "fake-model"\n[providers.fake]\nkind = "openai-compatible"\n` +
      `base_url = "${provider.url}"\n${providerKeys}\n[reliability]\nretries = 0\n[memory]\nauto_recall = false\n${channels}`,
  );
  const running: RunningChannel[] = [];
  return {
    dir,
    provider,
    running,
    async start(name, env = {}, limits) {
      const channel = await startChannelProcess({ name, workspace: dir, env: { ...process.env, ...env }, limits });
      running.push(channel);
      return channel;
    },
    async close() {
      for (const r of running.splice(0)) await r.stop();
      await provider.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}


/**
 * What the gateway does for /channels/<name>/webhook, for in-process tests of channels that receive over HTTP: each
 * request handed to the channel as it came (method, query, headers, raw body), its answer returned. Returns the URL.
 */
export function webhookBridge(running: RunningChannel, servers: Array<{ stop(force?: boolean): unknown }>): string {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const headers: Record<string, string> = {};
      for (const [key, value] of request.headers.entries()) headers[key] = value;
      const answer = await running.channel.handleHttp!({ method: request.method, query: new URL(request.url).search, headers, body: await request.text() });
      return new Response(answer.body, { status: answer.status, headers: answer.headers });
    },
  });
  servers.push(server);
  return `http://127.0.0.1:${server.port}/channels/${running.channel.name}/webhook`;
}

/** A Telegram-like channel "tg" with no platform behind it: the text of each reply it sends goes to `sent` (runner tests). */
export function recordingChannel(sent: string[]): Channel {
  return {
    name: "tg",
    kind: "telegram",
    capabilities: { edit: false, threads: false, maxMessageLength: 4096, typing: false },
    start: async () => {},
    send: async (reply) => (sent.push(reply.text), "id"),
    typing: async () => {},
    health: () => ({ ok: true, detail: "" }),
    stop: async () => {},
  };
}
