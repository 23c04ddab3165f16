import { UNAMBIGUOUS_ALPHABET } from "../../core/random-code.ts";
import { ApiError, describe, request, tokens } from "./api.ts";
import { h } from "./dom.ts";

/** The code's characters as the gateway prints them, in any case (its length is the gateway's to judge). */
const CODE_PATTERN = `[${UNAMBIGUOUS_ALPHABET}${UNAMBIGUOUS_ALPHABET.toLowerCase()}]+`;

/**
 * Sign-in: paste a token, or exchange the pairing code the gateway printed for one (POST /pair). The token
 * stays in this tab (sessionStorage) unless "remember me" keeps it in localStorage.
 */
export function signIn(done: () => void): HTMLElement {
  const error = h("div", { class: "error", role: "alert", hidden: true });
  const code = h("input", { id: "pair-code", name: "code", autocapitalize: "characters", autocomplete: "one-time-code", pattern: CODE_PATTERN, placeholder: "ABCD2345", "aria-label": "pairing code" });
  const token = h("input", { id: "token", name: "token", type: "password", autocomplete: "off", placeholder: "prx_…", "aria-label": "bearer token" });
  const remember = h("input", { id: "remember", type: "checkbox" });
  const show = (e: unknown) => {
    const { message, hint } = describe(e);
    error.hidden = false;
    error.replaceChildren(h("strong", {}, message), hint ? h("div", { class: "hint" }, hint) : "");
  };
  const accept = async (value: string) => {
    await request("/api/auth/token", {}, value); // checks it before keeping it
    tokens.set(value, remember.checked);
    done();
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    error.hidden = true;
    try {
      if (token.value.trim()) return await accept(token.value.trim());
      if (!new RegExp(`^${CODE_PATTERN}$`).test(code.value.trim())) throw new ApiError(400, "BAD_REQUEST", "enter the pairing code (letters and digits, no 0/O or 1/I/L), or paste a token", "the gateway printed the code when it started; `prx gateway pair-code` prints a new one");
      const paired = await request("/pair", { method: "POST", headers: { "x-pairing-code": code.value.trim() } }, null);
      await accept(((await paired.json()) as { token: string }).token);
    } catch (e) {
      show(e);
    }
  };
  const form = h(
    "form",
    { class: "signin card", "data-testid": "signin" },
    h("h1", {}, "prx console"),
    h("p", { class: "muted" }, "Sign in with the pairing code the gateway printed at start (or ", h("code", {}, "prx gateway pair-code"), " printed), or with a token from ", h("code", {}, "prx gateway token create"), "."),
    h("label", { for: "pair-code" }, "Pairing code"),
    code,
    h("label", { for: "token" }, "or token"),
    token,
    h("label", { class: "check" }, remember, " Remember me on this browser"),
    h("button", { type: "submit", class: "primary" }, "Sign in"),
    error,
  );
  form.addEventListener("submit", (e) => void submit(e));
  queueMicrotask(() => code.focus());
  return form;
}
