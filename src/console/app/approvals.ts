import { api, describe, json } from "./api.ts";
import { h } from "./dom.ts";

/** A tool call waiting for the owner, as GET /api/approvals and the session stream's `approval` event carry it. */
export interface PendingApproval {
  id: string;
  tool: string;
  risk: string;
  arguments_preview: string;
  expires_at: string;
  session_id?: string;
  channel?: string;
}

type Decision = "allow" | "allow_session" | "deny";

/**
 * A card for a tool call that waits for approval: Allow (once), Always (this tool, for the rest of the session) or
 * Deny answer it through POST /api/approvals/:id; the card then says what was decided (or why it could not be).
 */
export function approvalCard(approval: PendingApproval, onDecided?: () => void): HTMLElement {
  const state = h("span", { class: "tool-state" }, "waiting for your approval");
  const buttons = h("div", { class: "approval-actions" });
  const decide = async (decision: Decision) => {
    for (const button of buttons.querySelectorAll("button")) button.disabled = true;
    try {
      await api(`/api/approvals/${encodeURIComponent(approval.id)}`, json("POST", { decision }));
      state.textContent = decision === "deny" ? "denied" : decision === "allow_session" ? "allowed for this session" : "allowed";
      card.classList.add(decision === "deny" ? "bad" : "ok");
      buttons.remove();
      onDecided?.();
    } catch (error) {
      state.textContent = describe(error).message;
      card.classList.add("bad");
      buttons.remove();
    }
  };
  buttons.append(
    h("button", { type: "button", class: "primary", "data-testid": "approval-allow", onclick: () => void decide("allow") }, "Allow"),
    h("button", { type: "button", "data-testid": "approval-always", title: "allow this tool for the rest of the session", onclick: () => void decide("allow_session") }, "Always"),
    h("button", { type: "button", class: "danger", "data-testid": "approval-deny", onclick: () => void decide("deny") }, "Deny"),
  );
  const where = approval.session_id ? ` · ${approval.channel ?? ""} ${approval.session_id}` : "";
  const card: HTMLElement = h(
    "div",
    { class: "tool approval", "data-approval-id": approval.id, "data-testid": "approval-card" },
    h("div", {}, h("span", { class: "tool-name" }, approval.tool), h("span", { class: "muted small" }, ` ${approval.risk}${where}`), " ", state),
    h("pre", { class: "tool-args" }, approval.arguments_preview),
    buttons,
  );
  return card;
}

/** Every pending approval (all sessions, channels and replicas), each as a card; refreshed on demand. */
export function pendingApprovalsList(): { el: HTMLElement; refresh(): Promise<void> } {
  const list = h("div", { class: "approvals", "data-testid": "pending-approvals" });
  const refresh = async () => {
    try {
      const { approvals } = await api<{ approvals: PendingApproval[] }>("/api/approvals");
      list.replaceChildren(...approvals.map((a) => approvalCard(a, () => void refresh())));
      if (approvals.length === 0) list.append(h("p", { class: "muted" }, "No tool call waits for approval."));
    } catch (error) {
      list.replaceChildren(h("p", { class: "error" }, describe(error).message));
    }
  };
  return { el: list, refresh };
}

interface AuditEntry {
  at: string;
  session_id: string;
  channel: string;
  sender: string | null;
  tool: string;
  decision: string;
  decided_by: string;
  outcome: string;
  duration_ms: number;
  arguments_preview: string;
}

/**
 * The newest entries of the audit log (GET /api/audit): every tool call, its decision, who made it and how it ended;
 * `tool` narrows it to one tool.
 */
export function auditList(limit = 50, tool: () => string = () => ""): { el: HTMLElement; refresh(): Promise<void> } {
  const body = h("tbody");
  const table = h(
    "table",
    { class: "audit", "data-testid": "audit" },
    h("thead", {}, h("tr", {}, ...["time", "tool", "decision", "by", "outcome", "ms", "session"].map((c) => h("th", {}, c)))),
    body,
  );
  const note = h("p", { class: "muted" });
  const el = h("div", {}, table, note);
  const refresh = async () => {
    try {
      const only = tool();
      const { entries } = await api<{ entries: AuditEntry[] }>(`/api/audit?limit=${limit}${only ? `&tool=${encodeURIComponent(only)}` : ""}`);
      body.replaceChildren(
        ...entries.map((e) =>
          h(
            "tr",
            { "data-decision": e.decision, title: e.arguments_preview },
            h("td", { title: e.at }, new Date(e.at).toLocaleString()),
            h("td", { class: "tool-name" }, e.tool),
            h("td", {}, e.decision),
            h("td", {}, e.decided_by),
            h("td", {}, e.outcome),
            h("td", {}, String(Math.round(e.duration_ms))),
            h("td", { class: "muted small" }, `${e.channel} ${e.session_id}${e.sender ? ` (${e.sender})` : ""}`),
          ),
        ),
      );
      note.textContent = entries.length === 0 ? (only ? `No call of ${only} recorded.` : "No tool call recorded yet.") : "";
    } catch (error) {
      note.textContent = describe(error).message;
    }
  };
  return { el, refresh };
}
