import { h } from "./dom.ts";
import { errorBox } from "./error-box.ts";

/**
 * The line under a page's head that says how an action went: what is under way, then what it did (the sentence
 * `run` returns) or why it failed (the error with its hint). `then` runs either way (a refresh of the page).
 */
export function outcomeLine(testid: string, then: () => Promise<void>): { el: HTMLElement; run(pending: string | null, action: () => Promise<string>): Promise<void> } {
  const el = h("div", { role: "status", "data-testid": testid });
  return {
    el,
    async run(pending, action) {
      el.replaceChildren(pending ? h("p", { class: "muted" }, pending) : "");
      try {
        el.replaceChildren(h("p", { class: "note" }, await action()));
      } catch (error) {
        el.replaceChildren(errorBox(error));
      }
      await then();
    },
  };
}
