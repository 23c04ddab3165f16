import { PrxError } from "../../../core/errors.ts";
import { mergeDescriptor } from "./merge.ts";
import type { PluginDescriptor, WorkerToHostMessage } from "../protocol/index.ts";
import type { HostTransport } from "../transport/index.ts";
import { fromWireError } from "../wire-error.ts";

/**
 * The start of a worker: announce, optional announce-dynamic, then init-complete (or init-failed) within the ready
 * timeout. Messages that are not part of the handshake (host-rpc made by init, logs) are passed to `other`.
 */
export class Handshake {
  active = true;
  private staged: PluginDescriptor | null = null;
  private timer: ReturnType<typeof setTimeout>;
  readonly done: Promise<PluginDescriptor>;
  private finish!: (error: Error | null) => void;

  constructor(
    private readonly transport: HostTransport,
    private readonly name: string,
    readyTimeoutMs: number,
    private readonly other: (msg: WorkerToHostMessage) => void,
  ) {
    this.done = new Promise<PluginDescriptor>((resolve, reject) => {
      this.finish = (error) => {
        if (!this.active) return;
        this.active = false;
        clearTimeout(this.timer);
        if (error) reject(error);
        else resolve(this.staged!);
      };
    });
    this.timer = setTimeout(() => {
      this.finish(
        new PrxError("PLUGIN_TIMEOUT", `remote plugin ${name} was not ready within ${readyTimeoutMs} ms`, {
          hint:
            "the entry must call bootstrap(plugin) or export the plugin as default, and init() must finish; " +
            "raise [remote] ready_timeout_ms if it is slow",
          details: { stderr: transport.stderrTail() },
        }),
      );
    }, readyTimeoutMs);
  }

  feed(msg: WorkerToHostMessage): void {
    if (msg.type === "worker-announce-plugin") this.staged = msg.descriptor;
    else if (msg.type === "worker-announce-dynamic")
      this.staged = mergeDescriptor(this.staged ?? { name: this.name }, msg.descriptor);
    else if (msg.type === "init-complete") {
      if (this.staged) this.finish(null);
      else
        this.finish(new PrxError("REMOTE_PROTOCOL", `remote plugin ${this.name} sent init-complete before announce`));
    } else if (msg.type === "init-failed") {
      const error = fromWireError(msg.error, `remote plugin ${this.name} init`, "PLUGIN_LOAD");
      error.message = `remote plugin ${this.name} failed to initialize: ${msg.error.message}`;
      this.finish(error);
    } else this.other(msg);
  }

  exited(code: number | null, reason: string): void {
    this.finish(
      new PrxError("PLUGIN_LOAD", `remote plugin ${this.name} exited before it was ready (${reason})`, {
        hint: "run the entry file with bun to see its error; stderr tail is in details",
        details: { code, stderr: this.transport.stderrTail() },
      }),
    );
  }
}
