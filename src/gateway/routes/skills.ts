import { z } from "zod";
import type { SkillBook } from "../../skills/index.ts";
import { skillsReport } from "../../skills/report.ts";
import type { GatewayElysia } from "../elysia.ts";
import { jsonResponse } from "../errors.ts";
import { doc } from "../openapi/doc.ts";
import type { GatewayMount } from "../types.ts";

const SkillSchema = z.object({
  name: z.string(),
  description: z.string(),
  source: z.string().describe("workspace | user (~/.agents/skills) | extra ([skills] extra_dirs)"),
  dir: z.string(),
  eligible: z.boolean().describe("offered to the model"),
  reasons: z.array(z.string()).describe("why it is not offered"),
  shadowed: z.array(z.object({ dir: z.string(), source: z.string() })).describe("skills of the same name it hides"),
  license: z.string().nullable(),
  allowed_tools: z.array(z.string()).nullable(),
});
const SkillsListSchema = z.object({
  skills: z.array(SkillSchema),
  invalid: z.array(z.object({ dir: z.string(), source: z.string(), error: z.string() })).describe("folders whose SKILL.md cannot be loaded"),
});

/** `GET /api/skills`: every skill found (looked for again), whether it is offered and why not; behind auth. */
export function skillsRoutes(book: SkillBook): GatewayMount {
  return (app: GatewayElysia) =>
    app.get("/api/skills", async () => jsonResponse(skillsReport(await book.scan())), {
      detail: doc({
        summary: "Agent Skills: each skill's name, description and place, whether it is offered (and why not), what it shadows",
        tags: ["skills"],
        responses: { 200: SkillsListSchema },
      }),
    });
}
