import { api, describe, events, json, request } from "./api.ts";
import { approvalCard } from "./approvals.ts";
import { h } from "./dom.ts";
import { renderMarkdown } from "./markdown.ts";
import type { UsageTotals } from "./usage.ts";

interface StoredMessage {
  seq: number;
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  tool_calls?: Array<{ id: string; name: string; arguments: string }>;
  tool_call_id?: string;
  name?: string;
  media?: Array<{ kind: "image" | "audio"; mime?: string; width?: number; height?: number; url?: string }>;
}

/** A tool call as a collapsible card: its arguments, then its result once it arrives. */
function toolCard(call: { id: string; name: string; arguments: string }): HTMLDetailsElement {
  let args = call.arguments;
  try {
    args = JSON.stringify(JSON.parse(call.arguments), null, 2);
  } catch {
    // not JSON: shown as it is
  }
  return h(
    "details",
    { class: "tool", "data-tool-id": call.id, "data-testid": "tool-card" },
    h("summary", {}, h("span", { class: "tool-name" }, call.name), h("span", { class: "tool-state" }, "running…")),
    h("div", { class: "tool-label" }, "arguments"),
    h("pre", { class: "tool-args" }, args),
  );
}

function toolResult(card: Element, result: { success: boolean; output: string }): void {
  const state = card.querySelector(".tool-state");
  if (state) state.textContent = result.success ? "done" : "failed";
  card.classList.add(result.success ? "ok" : "bad");
  card.append(h("div", { class: "tool-label" }, result.success ? "result" : "error"), h("pre", { class: "tool-result" }, result.output));
}

function bubble(role: string, markdown = "", images: string[] = []): HTMLElement {
  const body = h("div", { class: "md" });
  body.innerHTML = renderMarkdown(markdown);
  const shown = images.map((src) => h("img", { class: "msg-image", src, alt: "image", "data-testid": "user-image" }));
  return h("div", { class: `msg ${role}`, "data-role": role }, ...shown, body);
}

/** A stored image (kept by hash, not sent back to the page): named by its type and size. */
function mediaChip(ref: NonNullable<StoredMessage["media"]>[number]): HTMLElement {
  const type = ref.mime?.split("/")[1] ?? ref.kind;
  const size = ref.width && ref.height ? ` ${ref.width}×${ref.height}` : "";
  return h("span", { class: "media-chip muted small", "data-testid": "media-chip" }, ref.kind === "image" ? `image: ${ref.url ?? `${type}${size}`}` : `voice note (${type})`);
}

function errorBox(error: { message: string; hint?: string; code: string }): HTMLElement {
  return h("div", { class: "error", role: "alert", "data-testid": "chat-error" }, h("strong", {}, `${error.code}: ${error.message}`), error.hint ? h("div", { class: "hint" }, error.hint) : "");
}

/** A summary written by compaction (the messages it covers stay in the session). */
interface SummaryNote {
  through_seq: number;
  content: string;
  model: string;
}

/** A summary where it stands: after the last message it covers; later prompts carry it in place of those messages. */
function summaryBlock(summary: SummaryNote): HTMLElement {
  return h(
    "details",
    { class: "summary-note", "data-testid": "session-summary" },
    h("summary", {}, `Summary of messages 1-${summary.through_seq} (by ${summary.model}); the model sees it in place of them`),
    h("div", { class: "md" }, summary.content),
  );
}

/**
 * The messages of a session, as stored: user and assistant text, tool calls as cards with their results, summaries.
 * Returns what the session spent.
 */
export async function loadConversation(list: HTMLElement, sessionId: string): Promise<UsageTotals> {
  list.replaceChildren();
  const { messages, summaries = [], usage } = await api<{ messages: StoredMessage[]; summaries?: SummaryNote[]; usage: UsageTotals }>(
    `/api/sessions/${encodeURIComponent(sessionId)}`,
  );
  const notes = new Map(summaries.map((s) => [s.through_seq, s]));
  const cards = new Map<string, Element>();
  for (const message of messages) {
    const note = notes.get(message.seq - 1);
    if (note) list.append(summaryBlock(note));
    if (message.role === "tool") {
      const card = message.tool_call_id ? cards.get(message.tool_call_id) : undefined;
      if (card) toolResult(card, { success: !message.content.startsWith("error"), output: message.content });
      continue;
    }
    if (message.role === "system") continue;
    if (message.content || message.media?.length) {
      const shown = bubble(message.role, message.content);
      if (message.media?.length) shown.prepend(...message.media.map(mediaChip));
      list.append(shown);
    }
    for (const call of message.tool_calls ?? []) {
      const card = toolCard(call);
      cards.set(call.id, card);
      list.append(card);
    }
  }
  const last = notes.get(messages.at(-1)?.seq ?? -1);
  if (last) list.append(summaryBlock(last));
  list.scrollTop = list.scrollHeight;
  return usage;
}

/** `/compact`: the session's messages so far become its summary (nothing is deleted), then the conversation is shown again. */
export async function compactConversation(list: HTMLElement, sessionId: string): Promise<UsageTotals> {
  const done = await api<{ compacted: boolean; folded: number }>(`/api/sessions/${encodeURIComponent(sessionId)}/compact`, json("POST"));
  const usage = await loadConversation(list, sessionId);
  const text = done.compacted ? `Compacted ${done.folded} messages into the session summary.` : "Nothing new to compact.";
  list.append(h("div", { class: "note", "data-testid": "compacted" }, text));
  list.scrollTop = list.scrollHeight;
  return usage;
}

/** The union of the fields of the session stream's events (delta, tool_call, tool_result, message, approval, error). */
interface SessionEvent {
  tool: string;
  risk: string;
  arguments_preview: string;
  expires_at: string;
  text: string;
  id: string;
  name: string;
  arguments: string;
  success: boolean;
  output: string;
  code: string;
  message: string;
  hint?: string;
}

export interface Turn {
  /** Resolves when the turn ended (done, error or stopped). */
  finished: Promise<void>;
  stop(): Promise<void>;
}

/**
 * Sends a message and shows the reply as it streams (the session SSE route): text deltas re-render the Markdown once
 * per frame, tool calls become cards, an error shows with its hint. `stop` cancels the turn on the gateway.
 */
export function sendMessage(list: HTMLElement, sessionId: string, text: string, model: string | undefined, images: string[] = []): Turn {
  const path = `/api/sessions/${encodeURIComponent(sessionId)}`;
  const controller = new AbortController();
  list.append(bubble("user", text, images));
  // with images, the message is content parts as /v1/chat/completions takes them
  const message = images.length === 0 ? text : [...(text ? [{ type: "text", text }] : []), ...images.map((url) => ({ type: "image_url", image_url: { url } }))];
  const reply = bubble("assistant");
  reply.classList.add("streaming");
  reply.dataset.testid = "streaming-reply";
  list.append(reply);
  const body = reply.querySelector(".md")!;
  let streamed = "";
  let frame = 0;
  const render = () => {
    frame = 0;
    body.innerHTML = renderMarkdown(streamed);
    list.scrollTop = list.scrollHeight;
  };
  const cards = new Map<string, Element>();
  const run = async () => {
    try {
      const response = await request(`${path}/message`, {
        ...json("POST", { message, ...(model ? { model } : {}) }),
        headers: { accept: "text/event-stream" },
        signal: controller.signal,
      });
      for await (const { event, data } of events(response)) {
        const d = data as SessionEvent;
        if (event === "delta") {
          streamed += d.text;
          frame ||= requestAnimationFrame(render);
        } else if (event === "tool_call") {
          const card = toolCard({ id: d.id, name: d.name, arguments: d.arguments });
          cards.set(d.id, card);
          reply.before(card);
        } else if (event === "tool_result") {
          const card = cards.get(d.id);
          if (card) toolResult(card, { success: d.success, output: d.output });
        } else if (event === "message") {
          reply.before(bubble("assistant", d.text));
        } else if (event === "approval") {
          reply.before(approvalCard({ id: d.id, tool: d.tool, risk: d.risk, arguments_preview: d.arguments_preview, expires_at: d.expires_at }));
        } else if (event === "done") {
          streamed = (data as { reply: string }).reply;
          render();
        } else if (event === "error") {
          reply.after(errorBox({ code: d.code, message: d.message, ...(d.hint ? { hint: d.hint } : {}) }));
        }
      }
    } catch (error) {
      if (controller.signal.aborted) return;
      reply.after(errorBox(describe(error)));
    } finally {
      if (frame) cancelAnimationFrame(frame);
      if (streamed) render();
      else if (!body.textContent) reply.remove();
      reply.classList.remove("streaming");
      delete reply.dataset.testid;
    }
  };
  const finished = run();
  return {
    finished,
    async stop() {
      try {
        await api(`${path}/cancel`, json("POST"));
      } finally {
        controller.abort();
        list.append(h("div", { class: "note", "data-testid": "stopped" }, "Stopped."));
        await finished;
      }
    },
  };
}
