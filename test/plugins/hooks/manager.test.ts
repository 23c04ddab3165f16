import { afterEach, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { HOOKS_FILE_MAX_BYTES } from "../../../src/plugins/hooks/index.ts";
import { isPrxError } from "../../../src/core/errors.ts";
import { sha256Hex } from "../../../src/core/ids.ts";
import { hooksFixture } from "./helpers.ts";
import type { HooksFixture } from "./helpers.ts";

let fx: HooksFixture;
afterEach(() => fx.cleanup());

function expectPrxError(fn: () => unknown, code: string, status?: number): string {
  try {
    fn();
  } catch (error) {
    expect(isPrxError(error)).toBe(true);
    expect((error as { code: string }).code).toBe(code);
    if (status !== undefined) expect((error as { status?: number }).status).toBe(status);
    return (error as Error).message;
  }
  throw new Error(`expected PrxError ${code}`);
}

describe("HooksManager reload", () => {
  test("no hooks.json means no hooks", () => {
    fx = hooksFixture();
    expect(fx.manager.reload()).toEqual({ ok: true, changed: false, hash: null, actions: 0 });
    expect(fx.manager.list()).toEqual({ hash: null, doc: { hooks: {} }, actions: 0 });
  });

  test("content-addressed: the sha256 decides; a touched but identical file is unchanged", () => {
    const text = JSON.stringify({ hooks: { agent_end: [{ command: "true" }] } });
    fx = hooksFixture(text);
    expect(fx.manager.reload()).toEqual({ ok: true, changed: true, hash: sha256Hex(text), actions: 1 });
    expect(fx.manager.reload()).toMatchObject({ ok: true, changed: false });
    utimesSync(fx.path, new Date(), new Date(Date.now() + 5000));
    expect(fx.manager.refresh()).toMatchObject({ ok: true, changed: false });
    expect(fx.manager.refresh()).toBeNull();
    fx.write({ hooks: { agent_end: [{ command: "true" }, { command: "false" }] } });
    expect(fx.manager.refresh()).toMatchObject({ ok: true, changed: true, actions: 2 });
  });

  test("an invalid candidate keeps the previous hooks and reports why", () => {
    fx = hooksFixture({ hooks: { a: [{ command: "true" }] } });
    const good = fx.manager.reload();
    expect(good.ok).toBe(true);
    const keptHash = fx.manager.status().hash;
    const cases: [write: () => void, why: string][] = [
      [() => fx.write("{ not json"), "not valid JSON"],
      [
        () => fx.write({ hooks: { a: [{ command: "x", env: { LD_PRELOAD: "/evil.so" } }] } }),
        "hooks.a.0.env.LD_PRELOAD",
      ],
      [() => fx.write({ hooks: { a: [{ command: "x", timeout_ms: 0 }] } }), "timeout_ms must be at least 1"],
      [() => writeFileSync(fx.path, Buffer.from([0x7b, 0xff, 0x7d])), "not valid UTF-8"],
    ];
    for (const [write, why] of cases) {
      write();
      const result = fx.manager.reload();
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error).toContain(why);
        expect(result.kept).toBe(keptHash);
      }
      expect(fx.manager.status()).toMatchObject({ hash: keptHash, actions: 1, lastReload: { ok: false } });
    }
    expect(fx.logger.records.filter((r) => r.message.startsWith("hooks.json rejected"))).toHaveLength(4);
    fx.write({ hooks: {} });
    expect(fx.manager.reload()).toMatchObject({ ok: true, changed: true, actions: 0 });
    expect(fx.manager.status().lastReload).toMatchObject({ ok: true });
  });
});

describe("HooksManager edit API", () => {
  test("add, list, remove and replace write the file atomically through the same validation", () => {
    fx = hooksFixture();
    const added = fx.manager.add("Agent-End", { command: "notify-send", args: ["done"] });
    expect(added.doc.hooks).toEqual({
      agent_end: [{ command: "notify-send", args: ["done"], env: {}, stdin_json: true }],
    });
    fx.manager.add("agent_end", { command: "logger", timeout_ms: 100 });
    fx.manager.add("prx.cron.*", { command: "true" });
    const listed = fx.manager.list();
    expect(listed.actions).toBe(3);
    expect(listed.hash).toBe(sha256Hex(readFileSync(fx.path)));
    expect(JSON.parse(readFileSync(fx.path, "utf8"))).toEqual(listed.doc);
    expect(statSync(fx.path).mode & 0o777).toBe(0o600);

    expect(fx.manager.remove("agent-end", 0).doc.hooks.agent_end).toEqual([
      { command: "logger", args: [], env: {}, timeout_ms: 100, stdin_json: true },
    ]);
    expect(fx.manager.remove("prx.cron.*").doc.hooks).not.toHaveProperty("prx.cron.*");
    expectPrxError(() => fx.manager.remove("nope"), "NOT_FOUND", 404);
    expectPrxError(() => fx.manager.remove("agent_end", 5), "NOT_FOUND", 404);

    const replaced = fx.manager.replace({ timeout_ms: 1000, hooks: { error: [{ command: "true" }] } });
    expect(replaced).toMatchObject({ actions: 1, doc: { timeout_ms: 1000 } });
    expect(readdirSync(fx.root).sort()).toEqual(["hooks.json", "payloads"]);
  });

  test("invalid edits are refused and leave the file untouched", () => {
    fx = hooksFixture({ hooks: { a: [{ command: "true" }] } });
    const before = readFileSync(fx.path, "utf8");
    expect(
      expectPrxError(() => fx.manager.add("a", { command: "x", env: { PATH: "/tmp" } }), "HOOKS_INVALID", 400),
    ).toContain("PATH may not be set");
    expectPrxError(() => fx.manager.add("a.*.b", { command: "x" }), "HOOKS_INVALID", 400);
    expectPrxError(() => fx.manager.replace({ hooks: { a: "nope" } }), "HOOKS_INVALID", 400);
    const big = { hooks: { a: [{ command: "x", args: Array.from({ length: 128 }, () => "y".repeat(2100)) }] } };
    expectPrxError(() => fx.manager.replace(big), "LIMIT_EXCEEDED", 413);
    expect(readFileSync(fx.path, "utf8")).toBe(before);
    expect(readdirSync(fx.root).sort()).toEqual(["hooks.json", "payloads"]);
    expect(JSON.stringify(big).length).toBeGreaterThan(HOOKS_FILE_MAX_BYTES);
  });

  test("ifMatch guards against concurrent edits", () => {
    fx = hooksFixture({ hooks: {} });
    const { hash } = fx.manager.list();
    const next = fx.manager.add("a", { command: "true" }, { ifMatch: hash });
    expectPrxError(() => fx.manager.add("b", { command: "true" }, { ifMatch: hash }), "CONFLICT", 409);
    expect(fx.manager.add("b", { command: "true" }, { ifMatch: next.hash }).actions).toBe(2);
  });

  test("an invalid file on disk blocks partial edits but can be replaced", () => {
    fx = hooksFixture("{ broken");
    expect(expectPrxError(() => fx.manager.add("a", { command: "true" }), "HOOKS_INVALID")).toContain(
      "on disk is invalid",
    );
    expect(fx.manager.replace({ hooks: { a: [{ command: "true" }] } }).actions).toBe(1);
  });
});
