/**
 * A Host header of 3 characters or fewer (`x`, `abc`) is routed by the request's real path, as the first request after
 * start and later, with the client's own address kept (pairing lockouts count it).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { PAIRING_MAX_FAILURES } from "../../src/gateway/limits.ts";
import { fakeProviderConfig, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { binarySuite } from "../helpers/binary-suite.ts";
import { wrongPairingCode } from "../helpers/pair-from.ts";
import { rawConnection, requestHead } from "../helpers/raw-http.ts";

setDefaultTimeout(60_000);

const suite = binarySuite();
let gateway: RunningGateway;

async function raw(host: string, method: string, path: string, headers: Record<string, string>, body = "", from?: string) {
  const connection = rawConnection(
    gateway.url,
    requestHead(method, path, { Host: host, "Content-Length": Buffer.byteLength(body), ...headers }, body),
    from,
  );
  const response = await connection.response;
  connection.close();
  if (!response) throw new Error(`${method} ${path} with Host: ${host}: the connection closed without an answer`);
  return response;
}

beforeAll(async () => {
  gateway = await startGatewayBinary(suite.workspace(fakeProviderConfig(suite.fake.url, `models = ["fake-model"]\n`)));
}, 300_000);

afterAll(async () => {
  gateway?.proc.kill("SIGKILL");
  await gateway?.proc.exited;
});

describe("short Host headers (compiled binary)", () => {
  test("the first request after start is routed, and the client's address kept: wrong codes lock out that address only", async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= PAIRING_MAX_FAILURES; i++)
      statuses.push((await raw("x", "POST", "/pair", { "X-Pairing-Code": wrongPairingCode(gateway.code!) }, "", "127.0.0.5")).status);
    expect(statuses[0]).toBe(401);
    expect(statuses.at(-1)).toBe(429);
    const elsewhere = await raw("x", "POST", "/pair", { "X-Pairing-Code": wrongPairingCode(gateway.code!) }, "", "127.0.0.6");
    expect(elsewhere.status).toBe(401);
  });

  test("POST /pair and POST /v1/chat/completions answer as with a normal host", async () => {
    const paired = await raw("x", "POST", "/pair", { "X-Pairing-Code": gateway.code! });
    expect(paired.status).toBe(200);
    const token = (JSON.parse(paired.body) as { token: string }).token;
    expect(token.length).toBeGreaterThan(20);

    const chat = JSON.stringify({ model: "fake-model", messages: [{ role: "user", content: "short host" }] });
    for (const host of ["x", "abc", "localhost"]) {
      const answer = await raw(host, "POST", "/v1/chat/completions", { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, chat);
      expect({ host, status: answer.status }).toEqual({ host, status: 200 });
      expect(JSON.parse(answer.body).choices[0].message.content).toContain("echo: short host");
    }
    const missing = await raw("ab", "GET", "/api/no-such-route", { Authorization: `Bearer ${token}` });
    expect(missing.status).toBe(404);
  });
});
