import { auditList, pendingApprovalsList } from "./approvals.ts";
import { h } from "./dom.ts";

/** Entries of the audit log shown. */
const AUDIT_SHOWN = 200;

/** Approvals: the tool calls waiting for the owner (allow, always, deny) and the audit log of every tool call. */
export function auditView(): { el: HTMLElement; dispose(): void } {
  const tool = h("input", { type: "search", placeholder: "tool name", "aria-label": "only this tool", "data-testid": "audit-tool" });
  const approvals = pendingApprovalsList();
  const audit = auditList(AUDIT_SHOWN, () => tool.value.trim());
  const filter = h("form", { class: "row" }, tool, h("button", { type: "submit" }, "Filter"));
  filter.addEventListener("submit", (e) => (e.preventDefault(), void audit.refresh()));
  const refresh = () => void Promise.all([approvals.refresh(), audit.refresh()]);
  refresh();
  const el = h(
    "section",
    { class: "page", "data-testid": "approvals-view" },
    h("header", { class: "page-head" }, h("h2", {}, "Approvals"), h("button", { onclick: refresh, "data-testid": "approvals-refresh" }, "Refresh")),
    h("section", { class: "card", "data-testid": "approvals" }, h("h3", {}, "Waiting"), approvals.el),
    h("section", { class: "card", "data-testid": "audit-log" }, h("h3", {}, "Audit log"), h("p", { class: "muted small" }, "Every tool call, newest first: the decision, who made it, how it ended. Hover a row for its arguments."), filter, audit.el),
  );
  return { el, dispose() {} };
}
