import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventBus } from "../../../src/plugins/events/index.ts";
import { feedHooksFromBus, HOOKS_RECHECK_MS } from "../../../src/plugins/hooks/feed.ts";
import { HooksManager } from "../../../src/plugins/hooks/index.ts";
import { waitFor } from "../../helpers/wait.ts";
import { captureLogger } from "../events/log.ts";
import { hooksFixture } from "./helpers.ts";

const AGENT_END = { hooks: { agent_end: [{ command: "true" }] } };
const TOPIC = "prx.lifecycle.agent_stop";

test("with no action, a hooks.json written later is seen through its directory's watch and subscribes the feed", async () => {
  const fx = hooksFixture();
  const bus = new EventBus({ logger: captureLogger() });
  const feed = feedHooksFromBus(bus, fx.manager, fx.logger);
  try {
    expect(bus.wants(TOPIC)).toBe(false);
    fx.write(AGENT_END);
    await waitFor(() => bus.wants(TOPIC), "the hook subscribed", 5_000);
    // back to no action (through the manager): unsubscribed, and the file's next edit is seen again
    fx.manager.remove("agent_end");
    expect(bus.wants(TOPIC)).toBe(false);
    fx.write(AGENT_END);
    await waitFor(() => bus.wants(TOPIC), "the hook subscribed again", 5_000);
  } finally {
    await feed.stop();
    fx.cleanup();
  }
});

test("where hooks.json's directory cannot be watched, its stat is checked every HOOKS_RECHECK_MS", async () => {
  const root = mkdtempSync(join(tmpdir(), "prx-hooks-feed-"));
  const dir = join(root, "later"); // not there yet: no watch can be made
  const logger = captureLogger();
  const manager = new HooksManager({ path: join(dir, "hooks.json"), root: dir, tmpDir: root, logger });
  const bus = new EventBus({ logger });
  const feed = feedHooksFromBus(bus, manager, logger);
  try {
    mkdirSync(dir);
    writeFileSync(join(dir, "hooks.json"), JSON.stringify(AGENT_END));
    await waitFor(() => bus.wants(TOPIC), "the hook subscribed by the periodic check", HOOKS_RECHECK_MS * 5);
  } finally {
    await feed.stop();
    rmSync(root, { recursive: true, force: true });
  }
});
