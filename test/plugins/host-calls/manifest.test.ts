/** The host-call budget in plugin.toml `[resources]`: defaults, each bound at the limit and one past it, admission. */
import { expect, test } from "bun:test";
import { isPrxError } from "../../../src/core/errors.ts";
import {
  DEFAULT_HOST_CALL_BURST,
  DEFAULT_MAX_HOST_CALLS_IN_FLIGHT,
  DEFAULT_MAX_HOST_CALLS_PER_SECOND,
  MAX_HOST_CALL_BURST_LIMIT,
  MAX_HOST_CALLS_IN_FLIGHT_LIMIT,
  MAX_HOST_CALLS_PER_SECOND_LIMIT,
} from "../../../src/plugins/host-calls/index.ts";
import { parseManifest } from "../../../src/plugins/manifest.ts";

const head = `[plugin]\nname = "demo"\nversion = "1.0.0"\n`;

function problem(source: string): string {
  try {
    parseManifest(source, "/p/plugin.toml");
  } catch (error) {
    if (isPrxError(error, "PLUGIN_MANIFEST")) return error.message;
    throw error;
  }
  throw new Error("expected the manifest to be rejected");
}

test("a manifest without them gets the default budget", () => {
  expect(parseManifest(head).manifest.resources).toMatchObject({
    max_host_calls_per_second: DEFAULT_MAX_HOST_CALLS_PER_SECOND,
    host_call_burst: DEFAULT_HOST_CALL_BURST,
    max_host_calls_in_flight: DEFAULT_MAX_HOST_CALLS_IN_FLIGHT,
  });
});

test.each([
  ["max_host_calls_per_second", MAX_HOST_CALLS_PER_SECOND_LIMIT],
  ["host_call_burst", MAX_HOST_CALL_BURST_LIMIT],
  ["max_host_calls_in_flight", MAX_HOST_CALLS_IN_FLIGHT_LIMIT],
] as const)("%s: %d passes, one more and 0 are refused naming the key", (key, limit) => {
  const at = parseManifest(head + `[resources]\n${key} = ${limit}\n`).manifest.resources as Record<string, unknown>;
  expect(at[key]).toBe(limit);
  expect(problem(head + `[resources]\n${key} = ${limit + 1}\n`)).toContain(`/p/plugin.toml:5: "resources.${key}"`);
  expect(problem(head + `[resources]\n${key} = 0\n`)).toContain(`"resources.${key}"`);
  expect(parseManifest(head + `[resources]\n${key} = 1\n`).manifest.resources).toMatchObject({ [key]: 1 });
});
