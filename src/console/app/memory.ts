import { api, json } from "./api.ts";
import { badge, h, time } from "./dom.ts";
import { errorBox } from "./error-box.ts";
import { outcomeLine } from "./outcome.ts";

/** One entry as the memory routes return it. */
interface Memory {
  key: string;
  content: string;
  category: string;
  private: boolean;
  session_id: string | null;
  updated_at: string;
  score: number | null;
}

/** Entries per page. */
const PAGE_SIZE = 20;

/**
 * Memory: what prx remembers, a page at a time (newest first) and by category, or searched as memory_recall would;
 * each entry can be edited (stored again under its key), marked private (never recalled into a prompt on its own)
 * or forgotten. New entries are added the same way.
 */
export function memoryView(): { el: HTMLElement; dispose(): void; focusSearch(): void } {
  let offset = 0;
  let query = "";
  const list = h("ul", { class: "memories", "data-testid": "memory-list" });
  const pagerTop = h("div", { class: "row pager" });
  const pager = h("div", { class: "row pager" });
  /** The pager above the list, and again below a long one (`id` names the top one's parts for tests). */
  const setPager = (make: (id: (name: string) => string | null) => HTMLElement[], long = false) => {
    pagerTop.replaceChildren(...make((name) => name));
    pager.replaceChildren(...(long ? make(() => null) : []));
  };
  const seen = new Set<string>(["core"]);
  const categories = h("datalist", { id: "memory-categories" });
  const category = h("input", { type: "search", placeholder: "all categories", list: "memory-categories", "aria-label": "category", "data-testid": "memory-category" });
  const search = h("input", { type: "search", placeholder: "search what prx remembers", "aria-label": "search memory", "data-testid": "memory-search" });

  const store = async (entry: Pick<Memory, "key" | "content" | "category" | "private" | "session_id">) => {
    await api("/api/memory", json("POST", {
      key: entry.key, content: entry.content, category: entry.category, private: entry.private,
      ...(entry.session_id ? { session_id: entry.session_id } : {}),
    }));
  };
  const outcome = outcomeLine("memory-outcome", () => refresh());
  const act = (what: () => Promise<unknown>, done: string) => outcome.run(null, async () => (await what(), done));

  const editor = (entry: Memory | null, close: () => void): HTMLFormElement => {
    const key = h("input", { value: entry?.key ?? "", placeholder: "key", "aria-label": "key", required: true, readonly: entry !== null, "data-testid": "memory-edit-key" });
    const content = h("textarea", { rows: 3, "aria-label": "content", required: true, "data-testid": "memory-edit-content" }, entry?.content ?? "");
    const cat = h("input", { value: entry?.category ?? "core", list: "memory-categories", "aria-label": "category", "data-testid": "memory-edit-category" });
    const priv = h("input", { type: "checkbox", checked: entry?.private ?? false, "aria-label": "private" });
    const form = h("form", { class: "memory-edit", "data-testid": "memory-editor" },
      key, content,
      h("div", { class: "row" }, cat, h("label", { class: "check small", title: "never recalled into a prompt on its own; found by explicit searches" }, priv, "private"),
        h("button", { type: "submit", class: "primary", "data-testid": "memory-save" }, "Save"),
        h("button", { type: "button", onclick: close }, "Cancel")));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const k = key.value.trim();
      void act(() => store({ key: k, content: content.value, category: cat.value.trim() || "core", private: priv.checked, session_id: entry?.session_id ?? null }), `Stored ${k}.`).then(close);
    });
    return form;
  };

  const row = (entry: Memory): HTMLElement => {
    const li: HTMLElement = h("li", { class: "card memory", "data-key": entry.key, "data-testid": "memory-entry" });
    const show = () => {
      const priv = h("input", { type: "checkbox", checked: entry.private, "aria-label": `private: ${entry.key}`, "data-testid": "memory-private" });
      priv.addEventListener("change", () => void act(() => store({ ...entry, private: priv.checked }), `${entry.key} is ${priv.checked ? "private" : "no longer private"}.`));
      li.replaceChildren(
        h("header", {},
          h("strong", { class: "wrap" }, entry.key), badge(entry.category), entry.private ? badge("private", "warn") : "",
          entry.session_id ? badge(`session ${entry.session_id}`) : "",
          entry.score !== null ? h("span", { class: "muted small" }, `score ${entry.score.toFixed(2)}`) : "",
          h("span", { class: "spacer" }),
          h("span", { class: "muted small" }, time(entry.updated_at)),
          h("span", { class: "actions" },
            h("label", { class: "check small" }, priv, "private"),
            h("button", { class: "small", "data-testid": "memory-edit", onclick: () => li.replaceChildren(editor(entry, show)) }, "Edit"),
            h("button", { class: "small danger", "data-testid": "memory-forget", "aria-label": `forget ${entry.key}`, onclick: () => {
              if (confirm(`Forget ${entry.key}?`)) void act(() => api(`/api/memory/entries/${encodeURIComponent(entry.key)}`, json("DELETE")), `Forgot ${entry.key}.`);
            } }, "Forget"))),
        h("p", { class: "wrap" }, entry.content),
      );
    };
    show();
    return li;
  };

  const render = (entries: Memory[]) => {
    for (const e of entries) seen.add(e.category);
    categories.replaceChildren(...[...seen].sort().map((c) => h("option", { value: c })));
    list.replaceChildren(...entries.map(row));
  };
  const refresh = async () => {
    try {
      if (query) {
        const cat = category.value.trim();
        const found = (await api<{ entries: Memory[] }>(`/api/memory/search?q=${encodeURIComponent(query)}`)).entries;
        const entries = cat ? found.filter((e) => e.category === cat) : found;
        render(entries);
        if (entries.length === 0) list.append(h("li", { class: "muted" }, "Nothing relevant."));
        setPager(() => [h("span", { class: "muted small" }, `${entries.length} found for “${query}”${cat ? ` in ${cat}` : ""}`), h("button", { class: "small", onclick: () => ((search.value = ""), (query = ""), void refresh()) }, "Clear search")]);
        return;
      }
      const cat = category.value.trim();
      const page = await api<{ entries: Memory[]; total: number }>(`/api/memory?limit=${PAGE_SIZE}&offset=${offset}${cat ? `&category=${encodeURIComponent(cat)}` : ""}`);
      if (page.entries.length === 0 && offset > 0 && page.total > 0) {
        offset = Math.max(0, Math.floor((page.total - 1) / PAGE_SIZE) * PAGE_SIZE);
        return refresh();
      }
      render(page.entries);
      if (page.total === 0) list.append(h("li", { class: "muted" }, cat ? `Nothing in ${cat}.` : "prx remembers nothing yet."));
      const last = Math.min(offset + PAGE_SIZE, page.total);
      setPager((id) => [
        h("button", { class: "small", disabled: offset === 0, "data-testid": id("memory-prev"), onclick: () => ((offset = Math.max(0, offset - PAGE_SIZE)), void refresh()) }, "Newer"),
        h("span", { class: "muted small", "data-testid": id("memory-range") }, page.total === 0 ? "0 entries" : `${offset + 1}–${last} of ${page.total}`),
        h("button", { class: "small", disabled: last >= page.total, "data-testid": id("memory-next"), onclick: () => ((offset += PAGE_SIZE), void refresh()) }, "Older"),
      ], page.entries.length >= 10);
    } catch (error) {
      list.replaceChildren(h("li", {}, errorBox(error)));
      setPager(() => []);
    }
  };

  const filters = h("form", { class: "row filters" }, search, category, h("button", { type: "submit" }, "Search"));
  filters.addEventListener("submit", (e) => {
    e.preventDefault();
    query = search.value.trim();
    offset = 0;
    void refresh();
  });
  category.addEventListener("change", () => {
    query = search.value = "";
    offset = 0;
    void refresh();
  });
  const adding = h("div");
  const add = () => adding.replaceChildren(h("section", { class: "card" }, h("h3", {}, "New memory"), editor(null, () => adding.replaceChildren())));

  void refresh();
  const el = h(
    "section",
    { class: "page", "data-testid": "memory-view" },
    h("header", { class: "page-head" }, h("h2", {}, "Memory"), h("button", { onclick: add, "data-testid": "memory-add" }, "Add")),
    categories,
    filters,
    adding,
    outcome.el,
    pagerTop,
    list,
    pager,
  );
  return { el, dispose() {}, focusSearch: () => search.focus() };
}
