import { api, describe } from "./api.ts";
import { badge, h } from "./dom.ts";

/** One skill as GET /api/skills lists it. */
interface SkillRow {
  name: string;
  description: string;
  source: string;
  dir: string;
  eligible: boolean;
  reasons: string[];
  shadowed: { dir: string; source: string }[];
  license: string | null;
  allowed_tools: string[] | null;
}

interface SkillList {
  skills: SkillRow[];
  invalid: { dir: string; source: string; error: string }[];
}

function skillCard(skill: SkillRow): HTMLElement {
  return h(
    "article",
    { class: "card skill", "data-skill": skill.name, "data-testid": "skill" },
    h("header", {},
      h("h3", {}, skill.name),
      badge(skill.source),
      badge(skill.eligible ? "offered" : "not offered", skill.eligible ? "ok" : "warn")),
    h("p", { class: "muted" }, skill.description),
    skill.reasons.length ? h("ul", { class: "error", "data-testid": "skill-reasons" }, ...skill.reasons.map((r) => h("li", {}, r))) : "",
    h("div", { class: "small muted", style: "overflow-wrap:anywhere" }, h("code", {}, skill.dir)),
    skill.allowed_tools ? h("div", { class: "small" }, `allowed tools: ${skill.allowed_tools.join(" ")}`) : "",
    ...skill.shadowed.map((s) => h("div", { class: "small muted", style: "overflow-wrap:anywhere" }, `shadows ${s.dir} (${s.source})`)),
  );
}

/** Skills: each skill found, where, whether it is offered to the model and why not, and folders that cannot load. */
export function skillsView(): { el: HTMLElement; dispose(): void } {
  const list = h("div", { class: "plugins", "data-testid": "skills" });
  const head = h("p", { class: "muted" });
  const refresh = async () => {
    try {
      const data = await api<SkillList>("/api/skills");
      const offered = data.skills.filter((s) => s.eligible).length;
      head.textContent = `${data.skills.length} skill${data.skills.length === 1 ? "" : "s"} · ${offered} offered`;
      list.replaceChildren(...data.skills.map(skillCard));
      for (const bad of data.invalid) {
        list.append(h("div", { class: "error", style: "overflow-wrap:anywhere", "data-testid": "skill-invalid" }, `${bad.dir}: ${bad.error}`));
      }
      if (data.skills.length === 0 && data.invalid.length === 0) {
        list.append(h("p", { class: "muted" }, "No skills: put skill folders in the workspace's skills/ or ~/.agents/skills/."));
      }
    } catch (error) {
      list.replaceChildren(h("div", { class: "error" }, describe(error).message));
    }
  };
  void refresh();
  const el = h(
    "section",
    { class: "page", "data-testid": "skills-view" },
    h("header", { class: "page-head" }, h("h2", {}, "Skills"), head, h("button", { onclick: () => void refresh(), "data-testid": "skills-refresh" }, "Refresh")),
    list,
  );
  return { el, dispose() {} };
}
