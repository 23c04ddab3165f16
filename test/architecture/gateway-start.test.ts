/**
 * What `prx gateway` evaluates before it listens: src/boot/gateway.ts and every module it imports statically. The
 * packages below cost start-up time and are needed by no request the gateway answers at once, so none of those modules
 * imports them: zod comes with the config's validation (the cache answers at start) and the first tool call,
 * node:crypto builds Node's streams, node:async_hooks comes with the first span of an enabled tracer, node:os with a
 * home directory HOME does not name, node:fs/promises (node:events and its FileHandle, ~3 ms to load) with nothing:
 * node:fs's own functions serve.
 */
import { expect, test } from "bun:test";
import { packagesOf, staticClosure } from "./imports.ts";

const NOT_AT_START = ["zod", "node:crypto", "crypto", "node:async_hooks", "async_hooks", "node:os", "os", "node:fs/promises", "fs/promises"];

test("the modules the gateway evaluates before listening import no zod, node:crypto, node:async_hooks, node:os or node:fs/promises", () => {
  const closure = staticClosure("src/boot/gateway.ts");
  expect(closure).toContain("src/agent/host.ts");
  expect(closure).toContain("src/skills/limits.ts");
  const offending = closure.flatMap((file) => packagesOf(file).filter((spec) => NOT_AT_START.includes(spec)).map((spec) => `${file}: ${spec}`));
  expect(offending).toEqual([]);
});
