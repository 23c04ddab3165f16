/**
 * The supervisor with real child processes (this repository's CLI run by bun): a channel that cannot start is
 * restarted with backoff and reported, then flagged as a crash loop in health; the supervisor itself keeps serving.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ConfigSchema } from "../../src/config/schema.ts";
import { CHANNEL_CRASH_LOOP_RESTARTS } from "../../src/channels/limits.ts";
import { ChannelSupervisor } from "../../src/channels/supervisor.ts";
import { waitFor } from "../helpers/wait.ts";


const dir = mkdtempSync(join(tmpdir(), "prx-supervisor-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test(`a channel that keeps exiting is restarted with backoff, then reported as a crash loop once it exits more than ${CHANNEL_CRASH_LOOP_RESTARTS} times in the window`, async () => {
  // token_env names a variable that is not set: the child exits at start with a CHANNEL_CONFIG error
  const toml = `[channels.telegram]\nenabled = true\ntoken_env = "PRX_TEST_UNSET_TOKEN"\napi_base_url = "http://127.0.0.1:9"\n`;
  writeFileSync(join(dir, "config.toml"), toml);
  const config = ConfigSchema.parse({ channels: { telegram: { enabled: true, token_env: "PRX_TEST_UNSET_TOKEN", api_base_url: "http://127.0.0.1:9" } } });
  const env = { PATH: process.env.PATH, HOME: dir, PRX_LOG: "silent" };
  const supervisor = new ChannelSupervisor({
    workspace: dir,
    channels: config.channels,
    command: [process.execPath, resolve(import.meta.dir, "../../src/cli/main.ts")],
    env,
  });
  try {
    supervisor.start();
    await waitFor(() => supervisor.list()[0]!.restarts >= 1, "the first restart", 15_000);
    const first = supervisor.list()[0]!;
    expect(first.state === "restarting" || first.state === "starting").toBe(true);
    expect(first.last_error).toMatch(/exited with code 1/);
    expect(supervisor.health().ok).toBe(true);
    await waitFor(() => supervisor.list()[0]!.state === "crash_loop", "the crash loop", 20_000);
    expect(supervisor.list()[0]!.restarts).toBe(CHANNEL_CRASH_LOOP_RESTARTS + 1);
    expect(supervisor.health()).toMatchObject({ ok: false });
    expect(supervisor.health().detail).toContain("crash loop: telegram");
  } finally {
    await supervisor.stop();
  }
}, 40_000);
