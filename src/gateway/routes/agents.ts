import { z } from "zod";
import type { GatewayContext } from "../context.ts";
import type { GatewayElysia } from "../elysia.ts";
import { jsonResponse } from "../errors.ts";
import { doc } from "../openapi/doc.ts";

const AgentSchema = z.object({
  id: z.string(),
  name: z.string(),
  bio: z.string().describe("its bio (a list of lines joined)"),
  provider: z.string(),
  model: z.string().describe("the model its turns ask for unless a request names another (`agent:<id>` selects the agent)"),
  memory_scope: z.enum(["own", "shared"]),
  autonomy: z.string().describe("its [autonomy] level"),
  tools: z.object({ allow: z.array(z.string()).nullable().describe("null: every tool"), deny: z.array(z.string()) }),
  skills: z.array(z.string()).nullable().describe("the Agent Skills it may use; null: every skill"),
  bindings: z.array(z.object({ channel: z.string().nullable(), peer: z.string().nullable(), group: z.string().nullable() })),
});
const AgentListSchema = z.object({ agents: z.array(AgentSchema) }).describe("the workspace's agents, main first");

/** `GET /api/agents`: each agent the host runs turns as, with what its turns run on and the bindings routing to it. */
export function agentsRoutes(app: GatewayElysia, gw: GatewayContext): void {
  app.get(
    "/api/agents",
    () => {
      const { host } = gw;
      const agents = [...host.agents.values()].map((agent) => {
        const choice = host.resolveModelChoice({ agent: agent.id });
        return {
          id: agent.id,
          name: agent.name,
          bio: [agent.config.agent.bio].flat().join(" "),
          provider: choice.provider,
          model: choice.model,
          memory_scope: agent.memoryScope,
          autonomy: agent.config.autonomy.level,
          tools: { allow: agent.toolsAllow ? [...agent.toolsAllow] : null, deny: [...agent.toolsDeny] },
          skills: agent.skills ? [...agent.skills] : null,
          bindings: host.config.bindings
            .filter((binding) => binding.agent === agent.id)
            .map((binding) => ({ channel: binding.channel ?? null, peer: binding.peer ?? null, group: binding.group ?? null })),
        };
      });
      return jsonResponse({ agents });
    },
    {
      detail: doc({
        summary: "The workspace's agents ([agents.<id>], always main): model, memory scope, autonomy, tools, skills and bindings",
        tags: ["agents"],
        responses: { 200: AgentListSchema },
      }),
    },
  );
}
