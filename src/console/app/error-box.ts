import { describe } from "./api.ts";
import { h } from "./dom.ts";

/** An error as the console shows it: the message, and the hint (what to do next) under it. */
export function errorBox(error: unknown): HTMLElement {
  const { message, hint, code } = describe(error);
  return h("div", { class: "error", role: "alert", "data-code": code }, message, hint ? h("div", { class: "hint" }, hint) : "");
}
