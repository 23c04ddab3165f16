import { readFileSync } from "node:fs";
import type { AdmittedPlugin, PluginHostServices } from "../types.ts";
import { meteringFor, prepareComponent, prepareModule } from "./artifact-cache.ts";
import { ComponentArtifact, ComponentGuest, EvaluatedScripts } from "./guest/component.ts";
import { CoreModuleGuest } from "./guest/core-module.ts";
import { Meter, newInterruptFlag } from "./guest/meter.ts";
import type { Guest } from "./guest/types.ts";
import { pluginInfo, type HostContext } from "./host/context.ts";
import { componentImports } from "./host/index.ts";
import { KvStore } from "./host/kv.ts";
import { WebSocketTable } from "./host/socket-table.ts";

/**
 * One capability instance on the calling thread, without a sandbox: no timeout, no isolation. Only for
 * benchmarks (the "bare" baseline beside the sandboxed call) and tooling; the runtime always uses wasmLoader.
 */
export async function loadInThread(
  plugin: AdmittedPlugin,
  host: PluginHostServices,
  cap = 0,
): Promise<Guest & { close(): void }> {
  const kv = new KvStore(host.storage.path, plugin.name, plugin.resources.maxKvStorageMb);
  const log = host.logger.child(`plugin.${plugin.name}`);
  const ctx: HostContext = {
    plugin: pluginInfo(plugin),
    granted: plugin.granted,
    capIndex: cap,
    capability: plugin.capabilities[cap]!,
    canSubscribe: false,
    call: { httpRequests: 0 },
    kv,
    sockets: new WebSocketTable(),
    log: (level, message) => log[level](message),
    publish: (topic, payload) => host.events.publish(topic, payload),
    rpc: () => Promise.reject(new Error("host RPCs are not available in-thread")),
  };
  const bytes = readFileSync(plugin.entryPath);
  const { cacheDir } = host.workspace;
  const { maxMemoryMb, maxFuel } = plugin.resources;
  // nothing raises this flag: in-thread calls cannot be interrupted (no timeout), only run out of fuel
  const meter = new Meter(newInterruptFlag(), maxFuel);
  let guest: Guest;
  let done: () => void;
  if (plugin.kind === "wasm-component") {
    const use = await prepareComponent(plugin.name, bytes, cacheDir, maxMemoryMb, meteringFor(maxFuel), "local");
    done = use.done;
    const p = use.prepared;
    const artifact = new ComponentArtifact(p.js, p.modules, plugin.name, p.script, new EvaluatedScripts());
    guest = await ComponentGuest.create(artifact, ctx, await componentImports(ctx, p.meta.interfaces.imports), meter);
  } else {
    const use = await prepareModule(plugin.name, bytes, cacheDir, maxMemoryMb, meteringFor(maxFuel));
    done = use.done;
    guest = await CoreModuleGuest.create(use.prepared.module, ctx, meter);
  }
  return Object.assign(guest, {
    close: () => {
      kv.close();
      done();
    },
  });
}
