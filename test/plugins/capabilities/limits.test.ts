import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hooksRoutes } from "../../../src/gateway/routes/hooks.ts";
import { PROBE_MAX_BODY_BYTES, pluginRoutes } from "../../../src/gateway/routes/plugins.ts";
import { EXPORT_NAME_PATTERN } from "../../../src/plugins/adapters/provider.ts";
import { parseExportName } from "../../../src/plugins/adapters/provider.ts";
import { GuestToolSpecSchema, TOOL_SCHEMA_MAX_CHARS } from "../../../src/plugins/adapters/tool.ts";
import { HOOKS_API_MAX_BODY_BYTES } from "../../../src/plugins/hooks/api.ts";
import { parseProbeRequest, PROBE_MAX_MESSAGES } from "../../../src/plugins/probes/index.ts";
import { gatewayWithMounts } from "../../helpers/gateway-app.ts";
import { body, captureLogs, openHost, workspaceWith, type OpenedHost, type TestWorkspace } from "./helpers.ts";

let ws: TestWorkspace;
let opened: OpenedHost;
beforeAll(async () => {
  captureLogs();
  ws = workspaceWith(["hook-rec"], 'default_provider = "offline"\n');
  opened = await openHost(ws.root);
});
afterAll(async () => {
  await opened.host.close();
  ws.cleanup();
});

const app = () => gatewayWithMounts(opened.host, [pluginRoutes(() => opened.services), hooksRoutes(() => opened.services.hooks)]).app;

/** A JSON text of exactly `bytes` bytes: `make(pad)` with the padding sized to fit. */
function exactly(bytes: number, make: (pad: string) => unknown): string {
  const empty = JSON.stringify(make("")).length;
  const text = JSON.stringify(make("x".repeat(bytes - empty)));
  expect(text.length).toBe(bytes);
  return text;
}

const post = (method: string, path: string, text: string) =>
  app().handle(
    new Request(`http://local${path}`, { method, headers: { "content-type": "application/json" }, body: text }),
  );

describe("limits", () => {
  test(`PROBE_MAX_MESSAGES: ${PROBE_MAX_MESSAGES} messages pass, one more fails`, () => {
    const messages = (n: number) => Array.from({ length: n }, () => ({ role: "user", content: "m" }));
    expect(
      parseProbeRequest({ action: "provider_chat", name: "x", messages: messages(PROBE_MAX_MESSAGES) }).action,
    ).toBe("provider_chat");
    expect(() =>
      parseProbeRequest({ action: "provider_chat", name: "x", messages: messages(PROBE_MAX_MESSAGES + 1) }),
    ).toThrow(/messages/);
  });

  test("EXPORT_NAME_PATTERN: a 64-character provider/storage name passes, 65 fails", () => {
    expect(EXPORT_NAME_PATTERN.test("a".repeat(64))).toBe(true);
    expect(parseExportName("a".repeat(64), "w")).toBe("a".repeat(64));
    expect(() => parseExportName("a".repeat(65), "w")).toThrow(/name\(\) returned/);
  });

  test(`PROBE_MAX_BODY_BYTES: a ${PROBE_MAX_BODY_BYTES}-byte probe body is read, one byte more is 413`, async () => {
    const make = (extra: number) => (pad: string) => ({
      action: "middleware_test",
      stage: "outbound",
      data: { text: pad + "y".repeat(extra), channel: "c", session_id: "s" },
    });
    const at = await post("POST", "/api/plugins/hook-rec/probe", exactly(PROBE_MAX_BODY_BYTES, make(0)));
    expect(at.status).toBe(400);
    expect((await body(at)).error.message).toContain('plugin "hook-rec" has no middleware capability');
    const past = await post("POST", "/api/plugins/hook-rec/probe", exactly(PROBE_MAX_BODY_BYTES + 1, make(0)));
    expect(past.status).toBe(413);
  });

  test(`HOOKS_API_MAX_BODY_BYTES: a ${HOOKS_API_MAX_BODY_BYTES}-byte edit is read (then judged by hooks.json's own limit), one byte more is 413`, async () => {
    const make = (pad: string) => ({ doc: { hooks: { agent_end: [{ command: "true", args: [pad] }] } } });
    const at = await post("PUT", "/api/hooks", exactly(HOOKS_API_MAX_BODY_BYTES, make));
    expect(at.status).toBe(413);
    expect((await body(at)).error.message).toContain("hooks.json would be");
    const past = await post("PUT", "/api/hooks", exactly(HOOKS_API_MAX_BODY_BYTES + 1, make));
    expect(past.status).toBe(413);
    expect((await body(past)).error.message).toContain("request body of");
    expect((await body(await app().handle(new Request("http://local/api/hooks")))).actions).toBe(0);
  });
});

describe("a wasm tool's declared spec", () => {
  test("a parameters schema of TOOL_SCHEMA_MAX_CHARS is taken; one character more is refused", () => {
    const spec = (chars: number) => ({ name: "t", description: "d", parametersSchema: `{"x":"${"s".repeat(chars - 8)}"}` });
    expect(spec(TOOL_SCHEMA_MAX_CHARS).parametersSchema).toHaveLength(TOOL_SCHEMA_MAX_CHARS);
    expect(GuestToolSpecSchema.safeParse(spec(TOOL_SCHEMA_MAX_CHARS)).success).toBe(true);
    expect(GuestToolSpecSchema.safeParse(spec(TOOL_SCHEMA_MAX_CHARS + 1)).success).toBe(false);
  });
});
