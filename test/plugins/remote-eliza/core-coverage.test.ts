/**
 * Every member of the REAL @elizaos/core 1.7.2 IAgentRuntime (and the IDatabaseAdapter it extends), read from the
 * package's own type declarations, is either honoured by the remote runtime or fails with PLUGIN_UNSUPPORTED naming
 * it; none is "x is not a function". And agentId derives from the character's name exactly as elizaOS derives it.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isPrxError } from "../../../src/core/errors.ts";
import { stringToUuid } from "../../../src/plugins/remote/agent.ts";
import { bootstrap, type RuntimeProxyApi } from "../../../src/plugins/remote/worker-runtime/index.ts";
import {
  UNSUPPORTED_RUNTIME_METHODS,
  UNSUPPORTED_RUNTIME_PROPERTIES,
} from "../../../src/plugins/remote/worker-runtime/runtime-guard.ts";
import { memoryChannel } from "../remote/memory-channel.ts";
import { installStarter, type StarterInstall } from "./npm-starter.ts";

const install: StarterInstall = installStarter();
const skip = "skip" in install;
if ("skip" in install) console.warn(`SKIPPED the @elizaos/core coverage tests: ${install.skip}`);
const coreDir = () => ("skip" in install ? "" : join(install.nodeModules, "@elizaos", "core"));

/** Member names of `export interface <name>` in a .d.ts, with whether each is optional (`name?:` / `name?(`). */
function interfaceMembers(file: string, name: string): Map<string, boolean> {
  const text = readFileSync(file, "utf8");
  const start = text.indexOf(`export interface ${name} `);
  expect(start).toBeGreaterThan(-1);
  const body = text.slice(start, text.indexOf("\n}", start));
  const members = new Map<string, boolean>();
  for (const match of body.matchAll(/^ {4}([A-Za-z_$][\w$]*)(\?)?[(:<]/gm)) {
    members.set(match[1]!, (members.get(match[1]!) ?? true) && match[2] === "?");
  }
  return members;
}

async function remoteRuntime(): Promise<RuntimeProxyApi> {
  let runtime: RuntimeProxyApi | undefined;
  await bootstrap({ name: "coverage", init: (_config, rt) => void (runtime = rt) }, { channel: memoryChannel().channel });
  return runtime!;
}

describe("the remote runtime against @elizaos/core 1.7.2's IAgentRuntime", () => {
  test.skipIf(skip)("every member is honoured or fails with PLUGIN_UNSUPPORTED naming it", async () => {
    const types = join(coreDir(), "dist", "types");
    const members = new Map([
      ...interfaceMembers(join(types, "database.d.ts"), "IDatabaseAdapter"),
      ...interfaceMembers(join(types, "runtime.d.ts"), "IAgentRuntime"),
    ]);
    expect(members.size).toBeGreaterThan(120);
    const runtime = (await remoteRuntime()) as unknown as Record<string, unknown>;
    const problems: string[] = [];
    const honoured: string[] = [];
    for (const [name, optional] of members) {
      if (name in runtime) {
        honoured.push(name);
        continue;
      }
      const unsupportedMethod = UNSUPPORTED_RUNTIME_METHODS.has(name);
      try {
        const value = runtime[name];
        if (unsupportedMethod && typeof value === "function") {
          (value as () => unknown)();
          problems.push(`${name}: called without an error`);
        } else if (value !== undefined || !optional) problems.push(`${name}: read as ${typeof value}, no error`);
      } catch (error) {
        const named = String((error as Error).message).startsWith(`runtime.${name} is not supported in remote mode: `);
        if (!isPrxError(error, "PLUGIN_UNSUPPORTED") || !named) problems.push(`${name}: ${String(error)}`);
        if (!unsupportedMethod && !UNSUPPORTED_RUNTIME_PROPERTIES.has(name)) problems.push(`${name}: not listed`);
      }
    }
    expect(problems).toEqual([]);
    expect(honoured.sort()).toEqual(
      [
        "actions", "addEmbeddingToMemory", "agentId", "character", "composeState", "createMemory", "deleteCache", "emitEvent", "evaluators",
        "getCache", "getConversationLength", "getModel", "getEntityById", "getMemories", "getMemoryById", "getRelationships",
        "getRoom", "getRoomsByIds", "getService", "getSetting", "log", "logger", "providers", "registerEvent",
        "searchMemories", "setCache", "setSetting", "updateMemory", "useModel", "getTasks", "getTasksByName", "getTask",
      ].sort(),
    );
  });

  test.skipIf(skip)("agentId derives from the character's name as @elizaos/core's stringToUuid does", async () => {
    const core = (await import(join(coreDir(), "dist", "node", "index.node.js"))) as { stringToUuid(s: string): string };
    for (const name of ["Eliza", "Ada", "prx", "Zoë & friends / 2", "0b5c7a10-3c4e-4f55-9d1e-2f6a1b2c3d4e"]) {
      expect(stringToUuid(name)).toBe(core.stringToUuid(name));
    }
  });
});
