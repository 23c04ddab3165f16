import { afterAll, beforeAll } from "bun:test";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { ensureBinary } from "./binary.ts";
import { tempWorkspace } from "./workspace.ts";

/** What a test file running the built binary against the fake provider shares. */
export interface BinarySuite {
  /** The fake OpenAI server (started before the file's first test). */
  readonly fake: FakeServer;
  /** A temporary workspace with this config.toml, removed after the file's last test. */
  workspace(config?: string): string;
  /** Run `cleanup` after the file's last test. */
  later(cleanup: () => void): void;
}

/** Build the binary if needed and start the fake before the file's tests; stop and clean up after them. */
export function binarySuite(): BinarySuite {
  let fake: FakeServer | null = null;
  const cleanups: (() => void)[] = [];
  beforeAll(async () => {
    await ensureBinary();
    fake = startFakeOpenAI();
  }, 300_000);
  afterAll(async () => {
    await fake?.stop();
    for (const cleanup of cleanups) cleanup();
  });
  return {
    get fake() {
      if (!fake) throw new Error("the fake provider starts in beforeAll; use it inside a test");
      return fake;
    },
    workspace(config?: string) {
      const ws = tempWorkspace(config);
      cleanups.push(ws.cleanup);
      return ws.dir;
    },
    later: (cleanup) => void cleanups.push(cleanup),
  };
}
