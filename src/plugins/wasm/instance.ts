import { PrxError } from "../../core/errors.ts";
import type { AdmittedPlugin, CapabilityRef, GuestEventSink, PluginInstance } from "../types.ts";
import type { HostCallBudgetStatus } from "../host-calls/index.ts";
import type { Sandbox } from "./sandbox/index.ts";

/** PluginInstance of kinds wasm-component and wasm-module: a capability ref picks the instance inside the sandbox. */
export class WasmPluginInstance implements PluginInstance {
  constructor(
    readonly plugin: AdmittedPlugin,
    readonly sandbox: Sandbox,
  ) {}

  invoke(capability: CapabilityRef, fn: string, args: unknown[]): Promise<unknown> {
    const index = this.indexOf(capability);
    if (index < 0) {
      return Promise.reject(
        new PrxError(
          "PLUGIN_NOT_FOUND",
          `plugin ${this.plugin.name} has no ${capability.type} capability named ${capability.name}`,
        ),
      );
    }
    return this.sandbox.call(index, fn, args);
  }

  routeGuestEvents(capability: CapabilityRef, deliver: GuestEventSink): void {
    const index = this.indexOf(capability);
    if (index >= 0) this.sandbox.setEventSink(index, deliver);
  }

  private indexOf(capability: CapabilityRef): number {
    return this.plugin.capabilities.findIndex((c) => c.type === capability.type && c.name === capability.name);
  }

  hostCalls(): HostCallBudgetStatus {
    return this.sandbox.hostCalls();
  }

  release(): Promise<void> {
    return this.sandbox.release();
  }
}
