import { describe, expect, test } from "bun:test";
import type { z } from "zod";
import {
  isPlainWorkerRpc,
  isPlainWorkerRpcResult,
  WorkerToHostParser,
} from "../../../src/plugins/remote/protocol/fast-accept.ts";
import {
  WorkerRpcMessageSchema,
  WorkerRpcResultMessageSchema,
  WorkerToHostMessageSchema,
} from "../../../src/plugins/remote/protocol/index.ts";
import { fastAcceptAgrees as agree, fieldVariants } from "../../helpers/fast-accept.ts";

/** Values tried in every field: valid and invalid for one schema or another. */
const PROBES: unknown[] = [undefined, null, "", "x", 0, -1, 1, 1.5, 2, 2.5, 3, 2 ** 53, true, [], [{}], {}, { a: 1 }];

const variants = (base: unknown, paths: string[][]) => fieldVariants(base, paths, PROBES);

describe("the remote protocol's fast checks agree with their zod schemas (every call)", () => {
  const check = <S extends z.ZodType>(schema: S, accepts: (v: unknown) => boolean, base: object, keys: string[]) => {
    const corpus = variants(base, keys.map((k) => [k]));
    const { fast, total } = agree(schema, accepts, corpus, (v) => v);
    expect(accepts(base)).toBe(true);
    expect(fast).toBeGreaterThan(keys.length);
    expect(fast).toBeLessThan(total);
  };
  const id = ["type", "requestId"];

  test("worker-rpc", () => {
    const target = "service:ECHO.echo";
    const base = { type: "worker-rpc", requestId: 7, surface: "service", target, args: { a: 1 } };
    check(WorkerRpcMessageSchema, isPlainWorkerRpc, base, [...id, "surface", "target", "args"]);
    expect(isPlainWorkerRpc({ ...base, surface: "nope" })).toBe(false);
  });

  test("worker-rpc-result", () => {
    const base = { type: "worker-rpc-result", requestId: 7, ok: true, payload: [1, "x"] };
    check(WorkerRpcResultMessageSchema, isPlainWorkerRpcResult, base, [...id, "ok", "payload", "error"]);
    // errors always go through zod, which checks their shape
    expect(isPlainWorkerRpcResult({ ...base, ok: false, error: { name: "E", message: "m" } })).toBe(false);
  });

  test("the worker -> host union takes the fast path for results only", () => {
    const result = { type: "worker-rpc-result", requestId: 1, ok: true, payload: null };
    const log = { type: "log", level: "info", message: "hi" };
    const bad = { type: "worker-rpc-result", requestId: -1, ok: true };
    for (const value of [result, log, bad, { type: "host-rpc", requestId: 2, api: "runtime", method: "m" }]) {
      expect(WorkerToHostParser.safeParse(value).success).toBe(WorkerToHostMessageSchema.safeParse(value).success);
    }
    expect(WorkerToHostParser.safeParse(result)).toEqual({ success: true, data: result } as never);
    expect(WorkerToHostParser.safeParse(bad).error?.issues[0]?.path).toEqual(["requestId"]);
  });
});

