import type { Workspace } from "../../../core/workspace.ts";
import type { KvStore } from "../../wasm/host/kv.ts";
import type { IsolatedPlugin } from "./isolated.ts";

/** What a sandbox operation works on: the one loaded plugin of a session, its workspace, kv, and what it did. */
export interface SessionState {
  readonly name: string;
  readonly workspace: Workspace;
  readonly loaded: IsolatedPlugin;
  readonly kv: Pick<KvStore, "get" | "set" | "listKeys">;
  /** What the plugin published (the recorder behind the host's event bus) and logged. */
  readonly events: readonly { topic: string; payload: unknown }[];
  readonly logs: readonly string[];
}
