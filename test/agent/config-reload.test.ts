import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigReloader } from "../../src/agent/config-reload.ts";
import { openAgentHost } from "../../src/agent/host.ts";
import { loadConfig } from "../../src/config/loader.ts";
import { watchConfigFile } from "../../src/config/watch.ts";
import type { Logger } from "../../src/core/logger.ts";

const dir = mkdtempSync(join(tmpdir(), "prx-live-config-reloader-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const path = join(dir, "config.toml");

function quietLogger(lines: string[]): Logger {
  const keep = (message: string) => void lines.push(message);
  const logger: Logger = { trace: keep, debug: keep, info: keep, warn: keep, error: keep, child: () => logger };
  return logger;
}

test("a reload applies a valid file to the host and its appliers, refuses an invalid one, and answers a text once", async () => {
  writeFileSync(path, `[memory]\nbackend = "none"\n`);
  const host = await openAgentHost({ workspace: dir, loaded: loadConfig(path, {}), env: {} });
  const applied: string[][] = [];
  const lines: string[] = [];
  const reloader = new ConfigReloader({
    host,
    path,
    logger: quietLogger(lines),
    now: () => Date.UTC(2026, 0, 1),
    appliers: [{ name: "recorder", apply: (_next, changes) => (applied.push(changes.changed), ["recorded"]) }],
  });
  try {
    expect(reloader.check()).toEqual({ ok: true });
    writeFileSync(path, `[memory]\nbackend = "none"\n[agent]\ntemperature = 0.1\n`);
    const first = await reloader.reload();
    expect(first).toEqual({ ok: true, generation: 2, applied: ["agent"], notes: ["recorded"], restart: [], error: null, at: "2026-01-01T00:00:00.000Z" });
    expect(host.config.agent.temperature).toBe(0.1);
    expect(await reloader.reload()).toBe(first);
    expect(applied).toEqual([["agent"]]);

    writeFileSync(path, `[memory]\nbackend = "none"\n[agent]\ntemperature = 9\n`);
    const refused = await reloader.reload();
    expect(refused.ok).toBe(false);
    expect(refused.generation).toBe(2);
    expect(refused.error!.message).toStartWith(`${path}:4: "agent.temperature"`);
    expect(host.config.agent.temperature).toBe(0.1);
    expect(reloader.check().detail).toContain(`${path}:4`);
    expect(lines.at(-1)).toContain(`config.toml not applied; the running configuration stays (generation 2): ${path}:4`);

    writeFileSync(path, `[memory]\nbackend = "none"\n[agent]\ntemperature = 0.1\n[gateway]\nhost = "0.0.0.0"\n`);
    const named = await reloader.reload();
    expect(named).toMatchObject({ ok: true, generation: 2, applied: [], restart: ["gateway.host"] });
    expect(host.config.gateway.host).toBe("127.0.0.1");
    expect(reloader.check().detail).toBe("restart to apply: gateway.host");

    // beside the listen address, a [gateway] limit is applied: the host's configuration carries it, the address stays
    writeFileSync(path, `[memory]\nbackend = "none"\n[agent]\ntemperature = 0.1\n[gateway]\nhost = "0.0.0.0"\nmax_body_bytes = 2048\n`);
    const limits = await reloader.reload();
    expect(limits).toMatchObject({ ok: true, generation: 3, applied: ["gateway.max_body_bytes"], restart: ["gateway.host"] });
    expect(host.config.gateway.max_body_bytes).toBe(2048);
    expect(host.config.gateway.host).toBe("127.0.0.1");
  } finally {
    await host.close();
  }
});

test("the watch calls once per burst of writes to the file, and not for other files of its directory", async () => {
  let calls = 0;
  const watch = watchConfigFile(path, () => void calls++, 20);
  expect(watch).not.toBeNull();
  try {
    for (let i = 0; i < 5; i++) writeFileSync(path, `# edit ${i}\n`);
    writeFileSync(join(dir, "other.toml"), "x = 1\n");
    while (calls === 0) await Bun.sleep(5);
    await Bun.sleep(100);
    expect(calls).toBe(1);
  } finally {
    watch!.close();
  }
});
