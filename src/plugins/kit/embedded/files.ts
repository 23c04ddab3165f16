import { readTree } from "./read-tree.ts" with { type: "macro" };

/** The guest kit (`@prx/kit`, its generated WIT types, `@prx/kit/test`), path -> text; embedded in the binary. */
export const GUEST_FILES: Readonly<Record<string, string>> = readTree("guest");

/** The scaffold templates of `prx plugins new`, path -> text; embedded in the binary. */
export const TEMPLATE_FILES: Readonly<Record<string, string>> = readTree("templates");

/** The types of `prx/worker-runtime` (self-contained), for the editor of a remote plugin folder. */
export const WORKER_RUNTIME_TYPES: Readonly<Record<string, string>> = readTree("../remote/worker-runtime", [
  "types.ts",
  "runtime-types.ts",
]);
