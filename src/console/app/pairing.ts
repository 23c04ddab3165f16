import { api, json } from "./api.ts";
import { badge, h, time } from "./dom.ts";
import { errorBox } from "./error-box.ts";
import { outcomeLine } from "./outcome.ts";

/** One row of GET /api/channels/pairings. */
interface Pairing {
  channel: string;
  sender_id: string;
  display: string;
  code: string | null;
  state: "pending" | "approved";
  created_at: number;
  approved_at: number | null;
  owner?: boolean;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * Pairing: senders who asked a channel for access (each with the code they were given) and the approved ones.
 * Approve a request (optionally as an owner, who answers tool approvals in the chat), approve by a code the sender
 * read out, or revoke an approved sender.
 */
export function pairingView(): { el: HTMLElement; dispose(): void } {
  const pending = h("div", { "data-testid": "pairing-pending" });
  const approved = h("div", { "data-testid": "pairing-approved" });
  const outcome = outcomeLine("pairing-outcome", () => refresh());
  const approve = (code: string, owner: boolean) =>
    outcome.run(null, async () => {
      const row = await api<Pairing>("/api/channels/pairings/approve", json("POST", { code, owner }));
      return `${row.display || row.sender_id} may now talk to ${row.channel}${row.owner ? " (owner)" : ""}.`;
    });
  const revoke = async (row: Pairing) => {
    if (!confirm(`Revoke ${row.display || row.sender_id} on ${row.channel}? They will have to pair again.`)) return;
    await outcome.run(null, async () => {
      await api(`/api/channels/pairings/${encodeURIComponent(row.sender_id)}?channel=${encodeURIComponent(row.channel)}`, json("DELETE"));
      return `${row.display || row.sender_id} is revoked on ${row.channel}.`;
    });
  };

  const sender = (row: Pairing) => h("td", {}, h("strong", {}, row.display || row.sender_id), row.display && row.display !== row.sender_id ? h("div", { class: "muted small" }, row.sender_id) : "");
  const table = (heads: string[], rows: HTMLElement[]) =>
    h("div", { class: "scroll" }, h("table", { class: "list" }, h("thead", {}, h("tr", {}, ...heads.map((c) => h("th", {}, c)))), h("tbody", {}, ...rows)));

  const refresh = async () => {
    try {
      const { pairings } = await api<{ pairings: Pairing[] }>("/api/channels/pairings");
      const waiting = pairings.filter((p) => p.state === "pending");
      const paired = pairings.filter((p) => p.state === "approved");
      pending.replaceChildren(
        waiting.length === 0
          ? h("p", { class: "muted" }, "No sender waits for pairing.")
          : table(["channel", "sender", "code", "asked", ""], waiting.map((row) => {
              const owner = h("input", { type: "checkbox", "aria-label": `approve ${row.sender_id} as an owner` });
              return h("tr", { "data-sender": row.sender_id },
                h("td", {}, row.channel), sender(row), h("td", {}, h("code", {}, row.code ?? "")), h("td", {}, time(iso(row.created_at))),
                h("td", { class: "actions" },
                  h("label", { class: "check small", title: "an owner answers tool approvals asked in the channel" }, owner, "owner"),
                  h("button", { class: "small primary", "data-testid": "pairing-approve", onclick: () => void approve(row.code ?? "", owner.checked) }, "Approve")));
            })),
      );
      approved.replaceChildren(
        paired.length === 0
          ? h("p", { class: "muted" }, "No approved sender yet.")
          : table(["channel", "sender", "approved", ""], paired.map((row) =>
              h("tr", { "data-sender": row.sender_id },
                h("td", {}, row.channel), sender(row), h("td", {}, time(iso(row.approved_at)), row.owner ? " " : "", row.owner ? badge("owner", "ok") : ""),
                h("td", { class: "actions" }, h("button", { class: "small danger", "data-testid": "pairing-revoke", onclick: () => void revoke(row) }, "Revoke"))))),
      );
    } catch (error) {
      pending.replaceChildren(errorBox(error));
      approved.replaceChildren();
    }
  };

  const code = h("input", { class: "code-input", placeholder: "pairing code", "aria-label": "pairing code", autocomplete: "off", "data-testid": "pairing-code" });
  const asOwner = h("input", { type: "checkbox", "aria-label": "as an owner" });
  const byCode = h("form", { class: "row" }, code, h("label", { class: "check small" }, asOwner, "owner"), h("button", { type: "submit" }, "Approve code"));
  byCode.addEventListener("submit", (e) => {
    e.preventDefault();
    if (code.value.trim()) void approve(code.value.trim(), asOwner.checked).then(() => (code.value = ""));
  });

  void refresh();
  const el = h(
    "section",
    { class: "page", "data-testid": "pairing-view" },
    h("header", { class: "page-head" }, h("h2", {}, "Pairing"),
      h("p", { class: "muted" }, "Who may talk to prx through the channels."),
      h("button", { onclick: () => void refresh(), "data-testid": "pairing-refresh" }, "Refresh")),
    outcome.el,
    h("section", { class: "card" }, h("h3", {}, "Waiting for approval"), pending, byCode),
    h("section", { class: "card" }, h("h3", {}, "Approved senders"), approved),
  );
  return { el, dispose() {} };
}
