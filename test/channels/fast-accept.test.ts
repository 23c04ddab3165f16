import { describe, expect, test } from "bun:test";
import { InboundMessageParser, ParentMessageParser, plainForwardedRequest, plainInboundMessage } from "../../src/channels/fast-accept.ts";
import { ParentMessageSchema } from "../../src/channels/ipc.ts";
import { FORWARDED_QUERY_MAX_CHARS, INBOUND_ID_MAX_CHARS } from "../../src/channels/limits.ts";
import { InboundMessageSchema } from "../../src/channels/types.ts";
import { fastAcceptAgrees as agree, fieldVariants } from "../helpers/fast-accept.ts";

/** Values tried in every field: valid and invalid for one field or another. */
const PROBES: unknown[] = [undefined, null, "", "x", "x".repeat(257), "y".repeat(8193), 0, -1, 1, 1.5, 2 ** 53, Number.NaN, true, [], {}, { a: "b" }, { a: 1 }, "dm", "thread"];

describe("a channel's fast checks agree with their zod schemas (every forwarded request, every inbound message)", () => {
  test("the gateway's forwarded request", () => {
    const base = { type: "http", id: 7, request: { method: "POST", query: "?a=1", headers: { "content-type": "application/json" }, body: "{}" } };
    const paths = [["type"], ["id"], ["request"], ["extra"], ...["method", "query", "headers", "body", "extra"].map((k) => ["request", k]), ["request", "headers", "x"]];
    const corpus = fieldVariants(base, paths, PROBES);
    const { fast, total } = agree(ParentMessageSchema, (v) => plainForwardedRequest(v) !== null, corpus);
    expect(plainForwardedRequest(base)).not.toBeNull();
    expect(fast).toBeGreaterThan(paths.length);
    expect(fast).toBeLessThan(total);
    // the other messages of the gateway go to the schema
    for (const other of [{ type: "stop" }, { type: "reload_config" }, { type: "reload_plugins", name: null, generation: 2 }]) {
      expect(plainForwardedRequest(other)).toBeNull();
      expect(ParentMessageParser.safeParse(other)).toEqual(ParentMessageSchema.safeParse(other));
    }
    expect(ParentMessageParser.safeParse({ ...base, id: 1.5 }).error?.issues[0]?.path).toEqual(["id"]);
  });

  test("an adapter's inbound message", () => {
    const base = { id: "m1", channel: "wa", chatId: "c1", chatKind: "dm", threadId: null, senderId: "u1", senderDisplay: "U", senderIsBot: false, text: "hi", replyTo: null, mentioned: true, timestamp: 1700000000000 };
    const keys = [...Object.keys(base), "attachments", "extra"];
    const corpus = fieldVariants(base, keys.map((k) => [k]), PROBES);
    const { fast, total } = agree(InboundMessageSchema, (v) => plainInboundMessage(v) !== null, corpus, (v) => v);
    expect(fast).toBeGreaterThan(keys.length);
    expect(fast).toBeLessThan(total);
    // a copy, as the schema's parse gives
    const parsed = InboundMessageParser.safeParse(base);
    expect(parsed).toEqual({ success: true, data: base } as never);
    expect(parsed.data).not.toBe(base);
    // attachments are checked by the schema
    const withImage = { ...base, attachments: [{ kind: "image", ref: "file-1" }] };
    expect(plainInboundMessage(withImage)).toBeNull();
    expect(InboundMessageParser.safeParse(withImage)).toEqual(InboundMessageSchema.safeParse(withImage));
    expect(InboundMessageParser.safeParse({ ...base, chatKind: "room" }).error?.issues[0]?.path).toEqual(["chatKind"]);
  });

  test("the bounds: INBOUND_ID_MAX_CHARS and FORWARDED_QUERY_MAX_CHARS pass at the limit and fail one past it", () => {
    const message = { id: "m1", channel: "wa", chatId: "c1", chatKind: "dm", threadId: null, senderId: "u1", senderDisplay: "U", senderIsBot: false, text: "hi", replyTo: null, mentioned: false, timestamp: 1 };
    for (const key of ["id", "chatId", "threadId", "senderId", "senderDisplay"]) {
      expect(InboundMessageParser.safeParse({ ...message, [key]: "i".repeat(INBOUND_ID_MAX_CHARS) }).success).toBe(true);
      const past = InboundMessageParser.safeParse({ ...message, [key]: "i".repeat(INBOUND_ID_MAX_CHARS + 1) });
      expect(past.error?.issues[0]?.path).toEqual([key]);
    }
    const request = (query: string) => ({ type: "http", id: 1, request: { method: "POST", query, headers: {}, body: "" } });
    expect(ParentMessageParser.safeParse(request("q".repeat(FORWARDED_QUERY_MAX_CHARS))).success).toBe(true);
    expect(ParentMessageParser.safeParse(request("q".repeat(FORWARDED_QUERY_MAX_CHARS + 1))).error?.issues[0]?.path).toEqual(["request", "query"]);
  });
});
