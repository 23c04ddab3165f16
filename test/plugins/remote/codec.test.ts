import { describe, expect, test } from "bun:test";
import { isPrxError } from "../../../src/core/errors.ts";
import { decodeText, encodeMessage, LineDecoder } from "../../../src/plugins/remote/protocol/index.ts";
import {
  REMOTE_MAX_MESSAGE_BYTES,
  REMOTE_MAX_READY_TIMEOUT_MS,
  REMOTE_MAX_RPC_TIMEOUT_MS,
  REMOTE_MAX_SURFACES_PER_KIND,
  REMOTE_MIN_READY_TIMEOUT_MS,
  REMOTE_MIN_RPC_TIMEOUT_MS,
  REMOTE_TOOL_DESCRIPTION_MAX_CHARS,
} from "../../../src/plugins/remote/limits.ts";
import { describeAction, toolNameOf } from "../../../src/plugins/remote/tools.ts";
import { RemoteSectionSchema } from "../../../src/plugins/remote/manifest.ts";
import {
  HostToWorkerMessageSchema,
  PluginDescriptorSchema,
  WorkerToHostMessageSchema,
} from "../../../src/plugins/remote/protocol/index.ts";

const enc = new TextEncoder();

describe("codec", () => {
  test("encodeMessage accepts exactly the limit and refuses one byte more", () => {
    const overhead = JSON.stringify({ s: "" }).length;
    expect(encodeMessage({ s: "a".repeat(REMOTE_MAX_MESSAGE_BYTES - overhead) }).length).toBe(REMOTE_MAX_MESSAGE_BYTES);
    const error = (() => {
      try {
        encodeMessage({ s: "a".repeat(REMOTE_MAX_MESSAGE_BYTES - overhead + 1) });
      } catch (e) {
        return e;
      }
    })();
    expect(isPrxError(error, "PAYLOAD_TOO_LARGE")).toBe(true);
  });

  test("the limit counts UTF-8 bytes, not characters", () => {
    const overhead = JSON.stringify({ s: "" }).length;
    const chars = Math.floor((REMOTE_MAX_MESSAGE_BYTES - overhead) / 3);
    expect(() => encodeMessage({ s: "€".repeat(chars) })).not.toThrow();
    expect(() => encodeMessage({ s: "€".repeat(chars + 1) })).toThrow("exceeds");
  });

  test("functions and cycles are refused with a clear error", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => encodeMessage(cyclic)).toThrow("cannot be serialized");
  });

  test("decodeText reports malformed and oversize input instead of throwing", () => {
    expect(decodeText('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(decodeText("{nope").ok).toBe(false);
    const big = decodeText(`"${"x".repeat(REMOTE_MAX_MESSAGE_BYTES)}"`);
    expect(big).toMatchObject({ ok: false, reason: "oversize" });
  });

  test("LineDecoder joins lines split across chunks and skips blank lines", () => {
    const lines: string[] = [];
    const d = new LineDecoder(
      (l) => lines.push(l),
      () => {},
    );
    d.push(enc.encode('{"a":'));
    d.push(enc.encode('1}\n\n{"b"'));
    d.push(enc.encode(":2}\n€"));
    d.push(enc.encode("\n"));
    expect(lines).toEqual(['{"a":1}', '{"b":2}', "€"]);
  });

  test("LineDecoder passes a line at the limit and skips one past it without buffering it", () => {
    const lines: string[] = [];
    const oversize: number[] = [];
    const d = new LineDecoder(
      (l) => lines.push(l),
      (n) => oversize.push(n),
      10,
    );
    d.push(enc.encode("0123456789\n"));
    d.push(enc.encode("0123456"));
    d.push(enc.encode("7890\nok\n"));
    expect(lines).toEqual(["0123456789", "ok"]);
    expect(oversize).toEqual([11]);
  });
});

describe("protocol schemas", () => {
  test("every message type parses in its direction", () => {
    const ref = { rpc: true, id: "action:A" };
    const upstream = [
      {
        type: "worker-announce-plugin",
        protocol: 1,
        descriptor: { name: "p", actions: [{ name: "A", handler: ref }] },
      },
      { type: "worker-announce-dynamic", descriptor: { name: "p" } },
      { type: "init-complete" },
      { type: "init-failed", error: { name: "Error", message: "m", code: "C", stack: "s" } },
      { type: "worker-rpc-result", requestId: 1, ok: true, payload: 1 },
      { type: "worker-action-callback", callbackId: "cb", payload: { text: "t" } },
      { type: "host-rpc", requestId: 1, api: "runtime", method: "getSetting", args: { key: "k" } },
      { type: "log", level: "warn", message: "m" },
    ];
    for (const m of upstream) expect(WorkerToHostMessageSchema.safeParse(m).success).toBe(true);
    const downstream = [
      { type: "worker-rpc", requestId: 1, surface: "action", target: "action:A", args: {} },
      { type: "host-rpc-result", requestId: 1, ok: false, error: { name: "E", message: "m" } },
      { type: "cancel", requestId: 1 },
      { type: "shutdown" },
    ];
    for (const m of downstream) expect(HostToWorkerMessageSchema.safeParse(m).success).toBe(true);
    expect(WorkerToHostMessageSchema.safeParse(downstream[0]).success).toBe(false);
    expect(
      HostToWorkerMessageSchema.safeParse({ type: "worker-rpc", requestId: -1, surface: "x", target: "" }).success,
    ).toBe(false);
  });

  test("RemoteSectionSchema applies defaults and refuses entries outside the plugin", () => {
    expect(RemoteSectionSchema.parse({ entry: "worker.ts" })).toMatchObject({ transport: "worker", settings: {} });
    expect(RemoteSectionSchema.safeParse({ entry: "../x.ts" }).success).toBe(false);
    expect(RemoteSectionSchema.safeParse({ entry: "/abs.ts" }).success).toBe(false);
    expect(RemoteSectionSchema.safeParse({ entry: "w.ts", transport: "http" }).success).toBe(false);
    expect(RemoteSectionSchema.safeParse({ entry: "w.ts", extra: 1 }).success).toBe(false);
  });
});

describe("limits of manifests, descriptors and tool descriptions", () => {
  test("rpc and ready timeouts accept their bounds and refuse one past", () => {
    const ok = (extra: Record<string, number>) => RemoteSectionSchema.safeParse({ entry: "w.ts", ...extra }).success;
    expect(ok({ rpc_timeout_ms: REMOTE_MIN_RPC_TIMEOUT_MS, ready_timeout_ms: REMOTE_MAX_READY_TIMEOUT_MS })).toBe(true);
    expect(ok({ rpc_timeout_ms: REMOTE_MAX_RPC_TIMEOUT_MS, ready_timeout_ms: REMOTE_MIN_READY_TIMEOUT_MS })).toBe(true);
    expect(ok({ rpc_timeout_ms: REMOTE_MIN_RPC_TIMEOUT_MS - 1 })).toBe(false);
    expect(ok({ rpc_timeout_ms: REMOTE_MAX_RPC_TIMEOUT_MS + 1 })).toBe(false);
    expect(ok({ ready_timeout_ms: REMOTE_MIN_READY_TIMEOUT_MS - 1 })).toBe(false);
    expect(ok({ ready_timeout_ms: REMOTE_MAX_READY_TIMEOUT_MS + 1 })).toBe(false);
  });

  test(`a descriptor may announce ${REMOTE_MAX_SURFACES_PER_KIND} surfaces of a kind, not one more`, () => {
    const actions = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ name: `A${i}`, handler: { rpc: true, id: `action:A${i}` } }));
    const models = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`M${i}`, { rpc: true, id: `model:M${i}` }]));
    expect(
      PluginDescriptorSchema.safeParse({ name: "p", actions: actions(REMOTE_MAX_SURFACES_PER_KIND) }).success,
    ).toBe(true);
    expect(
      PluginDescriptorSchema.safeParse({ name: "p", actions: actions(REMOTE_MAX_SURFACES_PER_KIND + 1) }).success,
    ).toBe(false);
    expect(PluginDescriptorSchema.safeParse({ name: "p", models: models(REMOTE_MAX_SURFACES_PER_KIND) }).success).toBe(
      true,
    );
    expect(
      PluginDescriptorSchema.safeParse({ name: "p", models: models(REMOTE_MAX_SURFACES_PER_KIND + 1) }).success,
    ).toBe(false);
  });

  test(`tool descriptions are cut to ${REMOTE_TOOL_DESCRIPTION_MAX_CHARS} characters`, () => {
    const handler = { rpc: true as const, id: "action:A" };
    const exact = describeAction(
      { name: "A", description: "d".repeat(REMOTE_TOOL_DESCRIPTION_MAX_CHARS), handler },
      "p",
    );
    expect(exact).toBe("d".repeat(REMOTE_TOOL_DESCRIPTION_MAX_CHARS));
    const cut = describeAction(
      { name: "A", description: "d".repeat(REMOTE_TOOL_DESCRIPTION_MAX_CHARS + 1), handler },
      "p",
    );
    expect(cut.length).toBe(REMOTE_TOOL_DESCRIPTION_MAX_CHARS);
    expect(cut.endsWith("...")).toBe(true);
    expect(toolNameOf("ROLL DICE!")).toBe("ROLL_DICE_");
  });
});
