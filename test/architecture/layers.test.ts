/**
 * README's arrow, checked on the import graph of src/: cli -> boot -> gateway/chat/channels/mcp -> agent ->
 * plugins/skills/agents -> tools -> providers/memory -> media/contracts/config -> core; storage sits beside core (it imports only core
 * and the contracts' message types) below everything that keeps state. Type-only imports count too.
 */
import { expect, test } from "bun:test";
import { importsOf, sourceFiles, subsystemOf } from "./imports.ts";

const BASE = ["core"];
const SHARED = [...BASE, "config", "contracts", "storage", "media", "telemetry"];
const SERVICES = [...SHARED, "providers", "memory"];
const RUNTIME = [...SERVICES, "tools", "plugins", "skills", "agents"];
const HOSTS = [...RUNTIME, "agent"];

/** What each subsystem may import besides itself; a subsystem missing here fails the test until it is placed. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  core: [],
  storage: ["core", "contracts"],
  // package.json: the config cache is keyed by prx's and its parsers' versions
  config: [...BASE, ".."],
  contracts: BASE,
  // OpenTelemetry traces: the tracer, span context across awaits, the OTLP exporter ([telemetry] is its config)
  telemetry: [...BASE, "config"],
  // images and audio: sniffing, limits, notes, what a provider gets (the config only for model_info)
  media: [...BASE, "config", "contracts"],
  providers: SHARED,
  memory: SHARED,
  tools: [...SHARED, "providers", "memory"],
  plugins: [...SERVICES, "tools"],
  // Agent Skills: the skill tool, file access to skill folders and the prompt's skills section, for the agent
  skills: [...SERVICES, "tools"],
  // several agents: profiles, bindings, own memory scopes, elizaOS characters; the agent host runs each turn as one
  agents: [...SERVICES, "tools"],
  agent: RUNTIME,
  chat: HOSTS,
  // the web console's sources and the server side of its asset route (bundled by Bun, served by the gateway)
  console: BASE,
  gateway: [...HOSTS, "console"],
  channels: HOSTS,
  // the MCP client and server: prx_chat runs agent turns; the gateway reaches it through a port in contracts
  mcp: HOSTS,
  // the gateway's start: it opens the host, serves the gateway and supervises the channels
  boot: [...HOSTS, "gateway", "console", "channels", "mcp"],
  // package.json (the version) sits at the repository root
  cli: [...HOSTS, "boot", "chat", "gateway", "console", "channels", "mcp", ".."],
};

test("every import points inward, as README's architecture says", () => {
  const wrong: string[] = [];
  for (const file of sourceFiles()) {
    const from = subsystemOf(file);
    const allowed = MAY_IMPORT[from];
    if (!allowed) {
      wrong.push(`${file}: subsystem "${from}" has no place in the layers (add it to MAY_IMPORT)`);
      continue;
    }
    for (const edge of importsOf(file)) {
      // files of dependencies reached by path (a Worker bundle of preview2-shim) are not subsystems
      if (edge.to.startsWith("node_modules/")) continue;
      const to = subsystemOf(edge.to);
      if (to !== from && !allowed.includes(to)) wrong.push(`${file} imports ${edge.to} (${from} -> ${to})`);
    }
  }
  expect(wrong).toEqual([]);
});

test("the plugin runtime imports nothing of the agent, and nothing imports the CLI", () => {
  const edges = sourceFiles().flatMap(importsOf);
  expect(edges.filter((e) => e.from.startsWith("src/plugins/") && e.to.startsWith("src/agent/"))).toEqual([]);
  expect(edges.filter((e) => !e.from.startsWith("src/cli/") && e.to.startsWith("src/cli/"))).toEqual([]);
});
