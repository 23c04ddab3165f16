import { afterEach, describe, expect, test } from "bun:test";
import {
  HOOK_MAX_ARGS,
  HOOK_MAX_ENV,
  HOOK_TIMEOUT_MAX_MS,
  HOOK_TIMEOUT_MIN_MS,
  HOOKS_FILE_MAX_BYTES,
  HOOKS_MAX_ACTIONS,
  HooksFileSchema,
} from "../../../src/plugins/hooks/index.ts";
import { hooksFixture } from "./helpers.ts";
import type { HooksFixture } from "./helpers.ts";

const action = (extra: Record<string, unknown> = {}) => ({ command: "true", ...extra });
const valid = (doc: unknown) => HooksFileSchema.safeParse(doc).success;
const errorOf = (doc: unknown) => {
  const result = HooksFileSchema.safeParse(doc);
  return result.success ? "" : result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
};

describe("hooks.json schema bounds", () => {
  test(`${HOOKS_MAX_ACTIONS} actions pass, ${HOOKS_MAX_ACTIONS + 1} fail`, () => {
    const spread = (n: number) => ({
      hooks: { a: Array.from({ length: n - 6 }, () => action()), b: Array.from({ length: 6 }, () => action()) },
    });
    expect(valid(spread(HOOKS_MAX_ACTIONS))).toBe(true);
    expect(errorOf(spread(HOOKS_MAX_ACTIONS + 1))).toContain("at most 256 are allowed");
  });

  test(`${HOOK_MAX_ARGS} args pass, ${HOOK_MAX_ARGS + 1} fail`, () => {
    const args = (n: number) => ({ hooks: { a: [action({ args: Array.from({ length: n }, (_, i) => `${i}`) })] } });
    expect(valid(args(HOOK_MAX_ARGS))).toBe(true);
    expect(errorOf(args(HOOK_MAX_ARGS + 1))).toContain("at most 128 args");
  });

  test(`${HOOK_MAX_ENV} env entries pass, ${HOOK_MAX_ENV + 1} fail`, () => {
    const env = (n: number) => ({
      hooks: { a: [action({ env: Object.fromEntries(Array.from({ length: n }, (_, i) => [`V${i}`, "x"])) })] },
    });
    expect(valid(env(HOOK_MAX_ENV))).toBe(true);
    expect(errorOf(env(HOOK_MAX_ENV + 1))).toContain("at most 128 env entries");
  });

  test(`timeout ${HOOK_TIMEOUT_MIN_MS}..${HOOK_TIMEOUT_MAX_MS} passes at both levels, outside fails`, () => {
    for (const t of [HOOK_TIMEOUT_MIN_MS, HOOK_TIMEOUT_MAX_MS]) {
      expect(valid({ timeout_ms: t, hooks: { a: [action({ timeout_ms: t })] } })).toBe(true);
    }
    for (const t of [HOOK_TIMEOUT_MIN_MS - 1, HOOK_TIMEOUT_MAX_MS + 1, 1.5, -5]) {
      expect(valid({ timeout_ms: t, hooks: {} })).toBe(false);
      expect(valid({ hooks: { a: [action({ timeout_ms: t })] } })).toBe(false);
    }
  });

  test("user env may not set LD_PRELOAD, LD_LIBRARY_PATH, DYLD_*, PATH, HOME or prx's own variables", () => {
    for (const key of [
      "LD_PRELOAD",
      "LD_LIBRARY_PATH",
      "DYLD_INSERT_LIBRARIES",
      "DYLD_LIBRARY_PATH",
      "PATH",
      "HOME",
      "path",
      "Home",
      "PRX_HOOK_EVENT",
      "PRX_HOOK_PAYLOAD_FILE",
    ]) {
      const message = errorOf({ hooks: { a: [action({ env: { [key]: "/tmp/x" } })] } });
      expect(message).toContain(`hooks.a.0.env.${key}: ${key}`);
    }
    expect(valid({ hooks: { a: [action({ env: { MY_TOKEN: "x", LANG: "C" } })] } })).toBe(true);
    expect(errorOf({ hooks: { a: [action({ env: { "BAD-NAME": "x" } })] } })).toContain("must match [A-Za-z_]");
  });

  test("defaults, normalized event names and strictness", () => {
    const doc = HooksFileSchema.parse({ hooks: { "Agent-End": [{ command: "notify" }], "prx.lifecycle.*": [] } });
    expect(doc.hooks).toEqual({
      agent_end: [{ command: "notify", args: [], env: {}, stdin_json: true }],
      "prx.lifecycle.*": [],
    });
    expect(errorOf({ hooks: { "agent-end": [], agent_end: [] } })).toContain("name the same event (agent_end)");
    expect(errorOf({ hooks: {}, extra: 1 })).toContain("extra");
    expect(errorOf({ hooks: { a: [{ command: "x", shell: true }] } })).toContain("shell");
    expect(errorOf({ hooks: { a: [{ command: "" }] } })).toContain("command must not be empty");
    expect(errorOf({ hooks: { "a.*.b": [] } })).toContain('"*" that is not at the end');
    expect(errorOf({ hooks: { a: [{ command: "x", args: ["a\0b"] }] } })).toContain("NUL");
  });
});

describe("hooks.json file size", () => {
  let fx: HooksFixture;
  afterEach(() => fx.cleanup());

  test(`a ${HOOKS_FILE_MAX_BYTES}-byte file loads; ${HOOKS_FILE_MAX_BYTES + 1} bytes is rejected and the previous hooks stay`, () => {
    const body = JSON.stringify({ hooks: { a: [action()] } });
    fx = hooksFixture(body + " ".repeat(HOOKS_FILE_MAX_BYTES - body.length));
    const first = fx.manager.reload();
    expect(first).toMatchObject({ ok: true, changed: true, actions: 1 });
    const kept = fx.manager.status().hash;
    fx.write(JSON.stringify({ hooks: {} }) + " ".repeat(HOOKS_FILE_MAX_BYTES - 11));
    const second = fx.manager.reload();
    expect(second).toMatchObject({
      ok: false,
      kept,
      error: `file is ${HOOKS_FILE_MAX_BYTES + 1} bytes; the limit is ${HOOKS_FILE_MAX_BYTES}`,
    });
    expect(fx.manager.status()).toMatchObject({ hash: kept, actions: 1 });
  });
});
