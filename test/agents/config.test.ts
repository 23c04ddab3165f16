import { describe, expect, test } from "bun:test";
import { agentOf, agentRequest, bindAgent, matchesTool, resolveAgents } from "../../src/agents/index.ts";
import { agentMayUse } from "../../src/agents/tool-filter.ts";
import { parseConfig } from "../../src/config/loader.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { PrxError } from "../../src/core/errors.ts";

describe("agents of a configuration", () => {
  test("without [agents.*] there is one agent, main, running on the configuration as it is", () => {
    const config = ConfigSchema.parse({ agent: { system_prompt: "plain" } });
    const agents = resolveAgents(config);
    expect([...agents.keys()]).toEqual(["main"]);
    const main = agents.get("main")!;
    expect(main.config).toBe(config);
    expect(main.memoryScope).toBe("shared");
    expect(main.toolsAllow).toBeNull();
    expect(main.skills).toBeNull();
  });

  test("an agent takes what it leaves out from [agent] and the top level; its autonomy tools merge over [autonomy.tools]", () => {
    const config = ConfigSchema.parse({
      default_provider: "fake",
      default_model: "m-default",
      providers: { fake: { base_url: "http://127.0.0.1:1/v1", models: ["m-first", "m-second"] }, other: { base_url: "http://127.0.0.1:2/v1", models: ["o-1"] } },
      agent: { name: "prx", system_prompt: "base prompt", temperature: 0.3 },
      autonomy: { level: "supervised", tools: { shell: "deny", http_request: "ask" } },
      agents: {
        work: { system_prompt: "work prompt", default_model: "m-second", memory_scope: "own", skills: ["pdf"], autonomy: { level: "full", tools: { http_request: "allow" } } },
        home: { name: "Home", default_provider: "other" },
      },
    });
    const agents = resolveAgents(config);
    expect([...agents.keys()]).toEqual(["main", "work", "home"]);
    const work = agents.get("work")!;
    expect(work.config.agent.system_prompt).toBe("work prompt");
    expect(work.config.agent.name).toBe("prx");
    expect(work.config.agent.temperature).toBe(0.3);
    expect(work.config.default_provider).toBe("fake");
    expect(work.config.default_model).toBe("m-second");
    expect(work.config.autonomy).toEqual({ level: "full", approval_timeout_s: 300, tools: { shell: "deny", http_request: "allow" } });
    expect(work.memoryScope).toBe("own");
    expect(work.skills).toEqual(["pdf"]);
    // a provider of its own without a model: that provider's first model, not the top-level one
    const home = agents.get("home")!;
    expect(home.name).toBe("Home");
    expect(home.config.default_provider).toBe("other");
    expect(home.config.default_model).toBe("o-1");
    expect(home.config.agent.system_prompt).toBe("base prompt");
    // the rest of the configuration is shared
    expect(work.config.providers).toBe(config.providers);
  });

  test("[agents.main] lays itself over [agent]", () => {
    const config = ConfigSchema.parse({ agent: { system_prompt: "base" }, agents: { main: { system_prompt: "main's own" } } });
    expect(resolveAgents(config).get("main")!.config.agent.system_prompt).toBe("main's own");
  });

  test("a binding to an agent that is not configured is a configuration error naming it", () => {
    expect(() => parseConfig('[[bindings]]\nagent = "ghost"\nchannel = "tg"\n')).toThrow(/bindings\.0\.agent.*no agent "ghost"/);
    expect(parseConfig('[[bindings]]\nagent = "main"\nchannel = "tg"\n').bindings).toHaveLength(1);
    expect(() => parseConfig('[agents."Bad Id"]\n')).toThrow(PrxError);
  });

  test("an unknown agent is AGENT_NOT_FOUND naming the ones there are", () => {
    const agents = resolveAgents(ConfigSchema.parse({ agents: { work: {} } }));
    expect(agentOf(agents, undefined).id).toBe("main");
    try {
      agentOf(agents, "ghost");
      throw new Error("not thrown");
    } catch (error) {
      expect((error as PrxError).code).toBe("AGENT_NOT_FOUND");
      expect((error as PrxError).hint).toContain("main, work");
    }
  });
});

describe("bindings", () => {
  const bindings = ConfigSchema.parse({
    agents: { work: {}, home: {}, ops: {} },
    bindings: [
      { agent: "home", channel: "tg" },
      { agent: "work", channel: "tg", peer: "100" },
      { agent: "ops", group: "-42" },
      { agent: "work", channel: "tg", group: "-42", peer: "7" },
    ],
  }).bindings;

  test("the most specific matching binding wins; no match is main", () => {
    expect(bindAgent(bindings, { channel: "tg", peer: "100" })).toBe("work");
    expect(bindAgent(bindings, { channel: "tg", peer: "5" })).toBe("home");
    expect(bindAgent(bindings, { channel: "tg", peer: "5", group: "-42" })).toBe("ops");
    expect(bindAgent(bindings, { channel: "tg", peer: "7", group: "-42" })).toBe("work");
    expect(bindAgent(bindings, { channel: "slack", peer: "100" })).toBe("main");
    expect(bindAgent([], { channel: "tg" })).toBe("main");
  });
});

describe("an agent's tools", () => {
  test("deny wins over allow; patterns with * match runs of characters", () => {
    const agent = { toolsAllow: ["memory_*", "mcp__fs__*", "http_request"], toolsDeny: ["memory_forget"] };
    expect(agentMayUse(agent, "memory_store")).toBe(true);
    expect(agentMayUse(agent, "memory_forget")).toBe(false);
    expect(agentMayUse(agent, "mcp__fs__read")).toBe(true);
    expect(agentMayUse(agent, "shell")).toBe(false);
    expect(agentMayUse({ toolsAllow: null, toolsDeny: ["shell"] }, "file_read")).toBe(true);
    expect(matchesTool("a.b*", "a.bc")).toBe(true);
    expect(matchesTool("a.b*", "axbc")).toBe(false);
  });
});

describe("agent:<id> models", () => {
  test("name the agent, whose own model answers; two different agents named at once are refused", () => {
    expect(agentRequest({ model: "agent:work" })).toEqual({ agent: "work", model: undefined });
    expect(agentRequest({ model: "gpt-x", agent: "home" })).toEqual({ agent: "home", model: "gpt-x" });
    expect(agentRequest({ model: "agent:work", agent: "work" })).toEqual({ agent: "work", model: undefined });
    expect(() => agentRequest({ model: "agent:work", agent: "home" })).toThrow(/names agent "home" and model "agent:work"/);
  });
});
