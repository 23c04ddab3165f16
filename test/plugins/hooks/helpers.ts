import { alive } from "../../helpers/process.ts";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HooksManager } from "../../../src/plugins/hooks/index.ts";
import { captureLogger } from "../events/log.ts";
import type { CapturedLogger } from "../events/log.ts";

export interface HooksFixture {
  root: string;
  path: string;
  payloadDir: string;
  logger: CapturedLogger;
  manager: HooksManager;
  write(content: unknown): void;
  payloadFiles(): string[];
  cleanup(): void;
}

/** A throwaway workspace with its own payload-file directory, so tests can check nothing is left behind. */
export function hooksFixture(content?: unknown): HooksFixture {
  const root = mkdtempSync(join(tmpdir(), "prx-hooks-"));
  const payloadDir = join(root, "payloads");
  mkdirSync(payloadDir);
  const path = join(root, "hooks.json");
  const write = (value: unknown) => writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value));
  if (content !== undefined) write(content);
  const logger = captureLogger();
  const manager = new HooksManager({ path, root, tmpDir: payloadDir, logger });
  return {
    root,
    path,
    payloadDir,
    logger,
    manager,
    write,
    payloadFiles: () => readdirSync(payloadDir),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** True when the process no longer exists or is a zombie waiting for init to reap it. */
export function processGone(pid: number): boolean {
  return !alive(pid);
}
