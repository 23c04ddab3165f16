/**
 * With the default config the model is never offered wasm_plugins_manage, while the owner's ways in still probe the
 * live generation: POST /api/plugins/:name/probe on a real gateway (and `prx plugins probe`, see e2e.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AuthService } from "../../../src/gateway/auth/service.ts";
import { buildGateway } from "../../../src/gateway/app.ts";
import { pluginGatewayMounts } from "../../../src/gateway/routes/plugins.ts";
import { body, openScenario, type HostScenario } from "./helpers.ts";
import { sqliteStorageOf } from "../../helpers/host-db.ts";

let scenario: HostScenario;
beforeAll(async () => void (scenario = await openScenario(["redact-mw"])));
afterAll(() => scenario.close());

describe("wasm_plugins_manage with the default config", () => {
  test("the model is not offered it; the owner's probe over the API runs on the live generation", async () => {
    const { host } = scenario.opened;
    expect(host.tools.names()).not.toContain("wasm_plugins_manage");
    const auth = new AuthService({ tokens: sqliteStorageOf(host).tokens, pairingCodes: sqliteStorageOf(host).gatewayPairing, required: true, pairingCodeTtlMs: 60_000, now: Date.now });
    const { token } = auth.tokens.create("owner");
    const { app } = buildGateway({ host, auth, version: "test", startedAt: Date.now(), mounts: pluginGatewayMounts(host), accessLog: () => {} });
    const response = await app.handle(
      new Request("http://local/api/plugins/redact-mw/probe", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({
          action: "middleware_test",
          stage: "inbound",
          data: { text: "mail me: x@y.io", channel: "api", user_id: null, session_id: "p", metadata: {} },
        }),
      }),
    );
    expect(response.status).toBe(200);
    expect((await body(response)).result.output.text).toBe("mail me: [email redacted]");
  });
});
