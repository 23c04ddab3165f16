/**
 * Plugin reloads forwarded to real child processes (fake-channel-child.ts): a process still starting when the gateway
 * reloads its plugins is told once it says "ready", so it does not go on with the plugins it read before the reload.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ChannelSupervisor } from "../../src/channels/supervisor.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { waitFor } from "../helpers/wait.ts";

const dir = mkdtempSync(join(tmpdir(), "prx-supervisor-reload-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CHILD = resolve(import.meta.dir, "fake-channel-child.ts");
const channels = ConfigSchema.parse({ channels: { hook: { kind: "webhook", enabled: true, secret_env: "HOOK_SECRET" } } }).channels;

test("reloads forwarded while a channel process is starting reach it once it is ready, as one full reload at the latest generation", async () => {
  const logged: string[] = [];
  const supervisor = new ChannelSupervisor({
    workspace: dir,
    channels,
    command: [process.execPath, CHILD],
    env: { PATH: process.env.PATH, FAKE_READY_ON_SIGUSR1: "1" },
    logLine: (line) => void logged.push(line),
  });
  try {
    supervisor.start();
    await waitFor(() => logged.includes("waiting for SIGUSR1"), "the child to start", 15_000);
    const pid = supervisor.list()[0]!.pid!;
    expect(supervisor.list()[0]!.state).toBe("starting");
    supervisor.forwardReload("weather", 2);
    supervisor.forwardReload("search", 3);
    process.kill(pid, "SIGUSR1");
    await waitFor(() => logged.some((line) => line.startsWith("plugins reloaded")), "the reload to reach the child", 15_000);
    expect(supervisor.list()[0]!.state).toBe("running");
    supervisor.forwardReload("weather", 4);
    await waitFor(() => logged.filter((line) => line.startsWith("plugins reloaded")).length === 2, "the next reload", 15_000);
    expect(logged.filter((line) => line.startsWith("plugins reloaded"))).toEqual([`plugins reloaded: all generation 3 by ${pid}`, `plugins reloaded: weather generation 4 by ${pid}`]);
  } finally {
    await supervisor.stop();
  }
}, 40_000);
