import { api, describe } from "./api.ts";
import { badge, h } from "./dom.ts";

/** One agent as GET /api/agents lists it. */
interface AgentRow {
  id: string;
  name: string;
  bio: string;
  provider: string;
  model: string;
  memory_scope: "own" | "shared";
  autonomy: string;
  tools: { allow: string[] | null; deny: string[] };
  skills: string[] | null;
  bindings: Array<{ channel: string | null; peer: string | null; group: string | null }>;
}

function binding(b: AgentRow["bindings"][number]): string {
  const parts = [b.channel ? `channel ${b.channel}` : "any channel", b.peer ? `peer ${b.peer}` : "", b.group ? `group ${b.group}` : ""];
  return parts.filter(Boolean).join(", ");
}

function agentCard(agent: AgentRow): HTMLElement {
  const line = (label: string, value: string) => h("div", { class: "small" }, h("span", { class: "muted" }, `${label}: `), value);
  return h(
    "article",
    { class: "card", "data-agent": agent.id, "data-testid": "agent" },
    h("header", {}, h("h3", {}, `${agent.name} `, h("code", {}, agent.id)), badge(agent.memory_scope === "own" ? "own memory" : "shared memory", agent.memory_scope === "own" ? "ok" : "plain")),
    h("p", { class: "muted" }, agent.bio),
    line("model", `${agent.provider} / ${agent.model} (model "agent:${agent.id}" on the API)`),
    line("autonomy", agent.autonomy),
    line("tools", agent.tools.allow ? `only ${agent.tools.allow.join(", ")}` : agent.tools.deny.length ? "every tool but those denied" : "every tool"),
    agent.tools.deny.length ? line("denied", agent.tools.deny.join(", ")) : "",
    line("skills", agent.skills ? agent.skills.join(", ") || "none" : "every skill"),
    line("answers", agent.bindings.length ? agent.bindings.map(binding).join("; ") : agent.id === "main" ? "every message no binding sends elsewhere" : "only when asked for by name"),
  );
}

/** Agents: each agent of the workspace, what its turns run on, and the bindings that route messages to it. */
export function agentsView(): { el: HTMLElement; dispose(): void } {
  const list = h("div", { class: "plugins", "data-testid": "agents" });
  const refresh = async () => {
    try {
      const { agents } = await api<{ agents: AgentRow[] }>("/api/agents");
      list.replaceChildren(...agents.map(agentCard));
    } catch (error) {
      list.replaceChildren(h("div", { class: "error" }, describe(error).message));
    }
  };
  void refresh();
  const el = h(
    "section",
    { class: "page", "data-testid": "agents-view" },
    h("header", { class: "page-head" }, h("h2", {}, "Agents"), h("button", { onclick: () => void refresh() }, "Refresh")),
    list,
  );
  return { el, dispose() {} };
}
