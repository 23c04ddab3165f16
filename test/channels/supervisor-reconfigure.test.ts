/**
 * A reloaded [channels] with real child processes (fake-channel-child.ts): a channel enabled starts, one disabled
 * stops, one whose settings changed restarts, the others keep their process and are told to apply the rest.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ConfigSchema } from "../../src/config/schema.ts";
import { ChannelSupervisor } from "../../src/channels/supervisor.ts";
import { waitFor } from "../helpers/wait.ts";

const dir = mkdtempSync(join(tmpdir(), "prx-live-config-channels-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CHILD = resolve(import.meta.dir, "fake-channel-child.ts");
const channelsOf = (channels: Record<string, unknown>) => ConfigSchema.parse({ channels }).channels;
const hook = (secret: string, enabled = true) => ({ kind: "webhook", enabled, secret_env: secret });

test("reconfigure starts, stops and restarts exactly the channels whose settings changed", async () => {
  const logged: string[] = [];
  const supervisor = new ChannelSupervisor({
    workspace: dir,
    channels: channelsOf({ a: hook("A"), b: hook("B"), c: hook("C") }),
    command: [process.execPath, CHILD],
    env: { PATH: process.env.PATH },
    logLine: (line) => void logged.push(line),
  });
  const running = () => waitFor(() => supervisor.list().every((info) => info.state === "running"), "every child to say ready", 15_000);
  const pid = (name: string) => supervisor.list().find((info) => info.name === name)?.pid ?? null;
  try {
    supervisor.start();
    await running();
    const [a, c] = [pid("a"), pid("c")];
    const done = await supervisor.reconfigure(channelsOf({ a: hook("A", false), c: hook("C2"), b: hook("B"), d: hook("D") }));
    expect(done.sort()).toEqual(["channel a stopped", "channel c restarted", "channel d started"]);
    await running();
    expect(supervisor.names.sort()).toEqual(["b", "c", "d"]);
    expect(pid("c")).not.toBe(c);
    expect(a).not.toBeNull();
    expect(() => process.kill(a!, 0)).toThrow();
    supervisor.forwardConfigReload();
    await waitFor(() => logged.filter((line) => line.includes("config reloaded by")).length === 3, "every channel told to reload", 15_000);
    expect(await supervisor.reconfigure(channelsOf({ b: hook("B"), c: hook("C2"), d: hook("D") }))).toEqual([]);
  } finally {
    await supervisor.stop();
  }
}, 40_000);
