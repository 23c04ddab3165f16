import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { errorMessage, PrxError } from "../../../core/errors.ts";
import type { Workspace } from "../../../core/workspace.ts";
import { buildPlugin, readKitManifest, type BuildReport } from "../build/build.ts";
import { SOURCE_ENTRY } from "../layout.ts";
import { installPlugin } from "../pack/install.ts";
import { reloadInGateway, type ReloadOutcome } from "./reload-client.ts";

/**
 * One `prx plugins dev` session: each change (or the start) runs a cycle: build (kit plugins), install into the
 * workspace's plugins/<name>/ (marked as the dev copy of this folder), reload it in the workspace's gateway. Cycles
 * never overlap: changes during one run the next cycle once it ends. A failed build installs nothing, so the
 * gateway keeps serving the last good build; a refused reload keeps the previous generation serving.
 */
export const DEV_MARKER_FILE = ".prx-dev";

export type CycleResult =
  | { kind: "built"; build: BuildReport | null; installMs: number; reload: ReloadOutcome; totalMs: number }
  | { kind: "failed"; stage: "build" | "install"; error: string; totalMs: number };

export interface DevGateway {
  url: string;
  token: string;
}

export class DevLoop {
  readonly dir: string;
  readonly name: string;
  private running: Promise<void> | null = null;
  private queued: { paths: string[]; at: number } | null = null;

  constructor(
    dirArg: string,
    private readonly workspace: Workspace,
    private readonly gateway: DevGateway,
    private readonly report: (paths: string[], result: CycleResult) => void,
    private readonly force = false,
  ) {
    this.dir = resolve(dirArg);
    this.name = readKitManifest(this.dir).plugin.name;
  }

  /** Installing over a plugin that is not this folder's dev copy needs --force. */
  private checkTarget(): void {
    const target = join(this.workspace.pluginsDir, this.name);
    if (!existsSync(target) || this.force) return;
    const marker = join(target, DEV_MARKER_FILE);
    const source = existsSync(marker) ? readFileSync(marker, "utf8").trim() : null;
    if (source !== this.dir) {
      throw new PrxError("CONFLICT", `${target} holds a plugin ${this.name} that is not the dev copy of ${this.dir}`, {
        hint: "`prx plugins dev --force` replaces it with this folder's build",
      });
    }
  }

  /** Resolves once no cycle runs (none queued either). */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /** Run a cycle for these changes now, or right after the one running. */
  trigger(paths: string[], at = performance.now()): Promise<void> {
    if (this.running) {
      this.queued = { paths: [...new Set([...(this.queued?.paths ?? []), ...paths])], at: this.queued?.at ?? at };
      return this.running;
    }
    this.running = (async () => {
      let next: { paths: string[]; at: number } | null = { paths, at };
      while (next) {
        const result = await this.cycle(next.at);
        this.report(next.paths, result);
        next = this.queued;
        this.queued = null;
      }
      this.running = null;
    })();
    return this.running;
  }

  private async cycle(changedAt: number): Promise<CycleResult> {
    let build: BuildReport | null = null;
    try {
      if (readKitManifest(this.dir).plugin.runtime === "wasm" && existsSync(join(this.dir, SOURCE_ENTRY))) build = await buildPlugin(this.dir);
    } catch (error) {
      return { kind: "failed", stage: "build", error: errorMessage(error), totalMs: performance.now() - changedAt };
    }
    const installStarted = performance.now();
    try {
      this.checkTarget();
      const installed = await installPlugin(this.dir, this.workspace, { force: true, check: false, prebuilt: true });
      writeFileSync(join(installed.dir, DEV_MARKER_FILE), this.dir + "\n");
    } catch (error) {
      return { kind: "failed", stage: "install", error: errorMessage(error), totalMs: performance.now() - changedAt };
    }
    const installMs = performance.now() - installStarted;
    const reload = await reloadInGateway(this.gateway.url, this.gateway.token, this.name);
    return { kind: "built", build, installMs, reload, totalMs: performance.now() - changedAt };
  }
}
