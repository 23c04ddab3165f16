import { api, describe, json } from "./api.ts";
import { compactConversation, loadConversation, sendMessage, type Turn } from "./conversation.ts";
import { usageLine, type UsageTotals } from "./usage.ts";
import { attachmentTray } from "./attachments.ts";
import { ago, h } from "./dom.ts";

interface Session {
  id: string;
  title: string;
  channel: string;
  updated_at: string;
  message_count: number;
}

const MODEL_KEY = "prx.model";

function newSessionId(): string {
  return `console-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * Chat: the sessions (search, rename, delete) beside the conversation; a model picker from /v1/models; Enter sends,
 * Shift+Enter is a new line, Escape stops a streaming reply.
 */
export function chatView(): { el: HTMLElement; dispose(): void; focusSearch(): void; newSession(): void } {
  let current: string = newSessionId();
  let turn: Turn | null = null;
  const search = h("input", { type: "search", class: "search", placeholder: "Search sessions  ( / )", "aria-label": "search sessions", "data-testid": "session-search" });
  const sessions = h("ul", { class: "sessions", "data-testid": "sessions" });
  const messages = h("div", { class: "messages", "aria-live": "polite", "data-testid": "messages" });
  const model = h("select", { "aria-label": "model", "data-testid": "model" });
  const input = h("textarea", { rows: 2, placeholder: "Message  (Enter to send, Shift+Enter for a new line)", "aria-label": "message", "data-testid": "composer" });
  const send = h("button", { type: "submit", class: "primary", "data-testid": "send" }, "Send");
  const stop = h("button", { type: "button", class: "danger", hidden: true, "data-testid": "stop", title: "Stop (Esc)" }, "Stop");
  const status = h("div", { class: "muted small", role: "status" });
  const spent = h("div", { class: "muted small", "data-testid": "session-usage" });
  const showUsage = (usage: UsageTotals | null) => (spent.textContent = usage && usage.calls > 0 ? `This session: ${usageLine(usage)}` : "");
  const attachments = attachmentTray((message) => (status.textContent = message));

  const refreshSessions = async () => {
    const q = search.value.trim();
    try {
      const { sessions: found } = await api<{ sessions: Session[] }>(`/api/sessions?limit=200${q ? `&q=${encodeURIComponent(q)}` : ""}`);
      sessions.replaceChildren(...found.map(sessionItem));
      if (found.length === 0) sessions.append(h("li", { class: "muted" }, q ? "No session matches." : "No sessions yet."));
    } catch (error) {
      sessions.replaceChildren(h("li", { class: "error" }, describe(error).message));
    }
  };

  const open = async (id: string) => {
    if (turn) return;
    current = id;
    for (const li of sessions.querySelectorAll("li")) li.classList.toggle("active", li.dataset.id === id);
    try {
      showUsage(await loadConversation(messages, id));
    } catch (error) {
      messages.replaceChildren(h("div", { class: "error" }, describe(error).message));
    }
    input.focus();
  };

  const rename = async (session: Session) => {
    const title = prompt("New title for this session", session.title || session.id);
    if (!title?.trim()) return;
    try {
      await api(`/api/sessions/${encodeURIComponent(session.id)}`, json("PATCH", { title: title.trim() }));
    } catch (error) {
      alert(describe(error).message);
    }
    await refreshSessions();
  };

  const remove = async (session: Session) => {
    if (!confirm(`Delete "${session.title || session.id}" and everything remembered for it only?`)) return;
    try {
      await api(`/api/sessions/${encodeURIComponent(session.id)}`, json("DELETE"));
      if (session.id === current) newSession();
    } catch (error) {
      alert(describe(error).message);
    }
    await refreshSessions();
  };

  function sessionItem(session: Session): HTMLElement {
    const li = h(
      "li",
      { "data-id": session.id, class: session.id === current ? "active" : "" },
      h("button", { class: "session-open", title: session.id, onclick: () => void open(session.id) },
        h("span", { class: "title" }, session.title || session.id),
        h("span", { class: "muted small" }, `${session.channel} · ${session.message_count} msg · ${ago(session.updated_at)}`)),
      h("span", { class: "row-actions" },
        h("button", { class: "icon", title: "Rename", "aria-label": `rename ${session.title || session.id}`, onclick: () => void rename(session) }, "✎"),
        h("button", { class: "icon", title: "Delete", "aria-label": `delete ${session.title || session.id}`, onclick: () => void remove(session) }, "✕")),
    );
    return li;
  }

  function newSession(): void {
    if (turn) return;
    current = newSessionId();
    messages.replaceChildren(h("p", { class: "muted" }, "New conversation. Say something."));
    showUsage(null);
    for (const li of sessions.querySelectorAll("li")) li.classList.remove("active");
    input.focus();
  }

  const submit = async (event?: Event) => {
    event?.preventDefault();
    const text = input.value.trim();
    if ((!text && attachments.count === 0) || turn) return;
    input.value = "";
    if (text === "/compact" && attachments.count === 0) {
      status.textContent = "compacting…";
      try {
        showUsage(await compactConversation(messages, current));
      } catch (error) {
        messages.append(h("div", { class: "error", role: "alert", "data-testid": "chat-error" }, describe(error).message));
      }
      status.textContent = "";
      return;
    }
    const images = attachments.take();
    send.hidden = true;
    stop.hidden = false;
    status.textContent = "thinking…";
    messages.querySelector(":scope > p.muted")?.remove();
    turn = sendMessage(messages, current, text, model.value || undefined, images);
    await turn.finished;
    turn = null;
    send.hidden = false;
    stop.hidden = true;
    status.textContent = "";
    const ended = current;
    void api<{ usage: UsageTotals }>(`/api/sessions/${encodeURIComponent(ended)}`).then(
      ({ usage }) => ended === current && showUsage(usage),
      () => showUsage(null),
    );
    await refreshSessions();
    for (const li of sessions.querySelectorAll("li")) li.classList.toggle("active", li.dataset.id === current);
  };

  stop.addEventListener("click", () => void turn?.stop());
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) void submit(e);
  });
  model.addEventListener("change", () => localStorage.setItem(MODEL_KEY, model.value));
  let searching = 0;
  search.addEventListener("input", () => {
    clearTimeout(searching);
    searching = window.setTimeout(() => void refreshSessions(), 150);
  });
  const onKey = (e: KeyboardEvent) => {
    if (e.key === "Escape" && turn) void turn.stop();
  };
  document.addEventListener("keydown", onKey);

  void (async () => {
    try {
      const { data } = await api<{ data: Array<{ id: string }> }>("/v1/models");
      const saved = localStorage.getItem(MODEL_KEY);
      model.replaceChildren(h("option", { value: "" }, "default model"), ...data.map((m) => h("option", { value: m.id, selected: m.id === saved }, m.id)));
    } catch (error) {
      console.warn("the model list did not load; only the default model is offered", error);
      model.replaceChildren(h("option", { value: "" }, "default model"));
    }
  })();
  void refreshSessions();
  newSession();

  const form = h("form", { class: "composer" }, attachments.tray, input, h("div", { class: "composer-actions" }, attachments.button, attachments.picker, model, send, stop));
  form.addEventListener("submit", (e) => void submit(e));
  attachments.listen(form, input);
  const el = h(
    "section",
    { class: "chat", "data-testid": "chat-view" },
    h("aside", { class: "sidebar" }, h("div", { class: "sidebar-head" }, search, h("button", { class: "primary", title: "New session (n)", onclick: () => newSession(), "data-testid": "new-session" }, "New")), sessions),
    h("div", { class: "conversation" }, messages, status, spent, form),
  );
  return {
    el,
    dispose: () => document.removeEventListener("keydown", onKey),
    focusSearch: () => search.focus(),
    newSession,
  };
}
