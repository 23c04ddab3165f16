/**
 * A connection flood against the built binary, from a few loopback source addresses: over the per-address cap a new
 * request is refused at once, /health and turns from other addresses still answer, a held request still completes,
 * a slow body is cut at its deadline, and an answer given before the body arrived closes its connection.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { CONNECTIONS_PER_ADDRESS_MAX } from "../../src/gateway/limits.ts";
import { fakeProviderConfig, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { binarySuite } from "../helpers/binary-suite.ts";
import { rawConnection, requestHead, type RawConnection } from "../helpers/raw-http.ts";
import { waitFor } from "../helpers/wait.ts";

// the slow bodies wait for the gateway's 10 s body deadline
setDefaultTimeout(90_000);

const suite = binarySuite();
let gateway: RunningGateway;
let token = "";
const open: RawConnection[] = [];

/** A turn's body padded with spaces to a fixed length, so it can be sent in two parts. */
const BODY = JSON.stringify({ message: "held through the flood" }).padEnd(1000, " ");

function slowTurn(from: string, auth = true): RawConnection {
  const headers = {
    Host: "localhost",
    "Content-Type": "application/json",
    "Content-Length": BODY.length,
    ...(auth ? { Authorization: `Bearer ${token}` } : {}),
  };
  const connection = rawConnection(gateway.url, requestHead("POST", `/api/sessions/flood-${open.length}/message`, headers, BODY[0]), from);
  open.push(connection);
  return connection;
}

function health(from: string): RawConnection {
  const connection = rawConnection(gateway.url, requestHead("GET", "/health", { Host: "localhost" }), from);
  open.push(connection);
  return connection;
}

beforeAll(async () => {
  const dir = suite.workspace(fakeProviderConfig(suite.fake.url, `models = ["fake-model"]\n[gateway]\nrate_limit_per_minute = 100000\n`));
  gateway = await startGatewayBinary(dir);
  const paired = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
  token = ((await paired.json()) as { token: string }).token;
}, 300_000);

afterAll(async () => {
  for (const connection of open) connection.close();
  gateway?.proc.kill("SIGKILL");
  await gateway?.proc.exited;
});

describe("connection flood (compiled binary)", () => {
  test("an answer before the body arrived (no token) closes the connection at once", async () => {
    const connection = slowTurn("127.0.0.4", false);
    expect((await connection.response)?.status).toBe(401);
    await connection.closed;
    expect(connection.isClosed()).toBe(true);
  });

  test("over the per-address cap a request is refused at once; other addresses, held requests and deadlines work", async () => {
    const held = Array.from({ length: CONNECTIONS_PER_ADDRESS_MAX }, () => slowTurn("127.0.0.2"));
    // every held request has reached the gateway once a bodyless one from the same address is refused
    const refusedHealth = await waitFor(async () => {
      const probe = health("127.0.0.2");
      const answer = await probe.response;
      probe.close();
      return answer?.status === 503 && answer;
    }, "the per-address cap to be reached");
    expect(JSON.parse(refusedHealth.body).error.code).toBe("LIMIT_EXCEEDED");

    const over = slowTurn("127.0.0.2");
    const refused = await over.response;
    expect(refused?.status).toBe(503);
    expect(refused?.headers.connection).toBe("close");
    expect(JSON.parse(refused!.body).error.message).toContain(`at most ${CONNECTIONS_PER_ADDRESS_MAX}`);
    await over.closed;

    const other = await health("127.0.0.3").response;
    expect(other?.status).toBe(200);
    const turn = await fetch(`${gateway.url}/api/sessions/other/message`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "from another address" }),
    });
    expect(turn.status).toBe(200);
    expect(await turn.text()).toContain("echo: from another address");

    const [first, ...rest] = held;
    first!.write(BODY.slice(1));
    const completed = await first!.response;
    expect(completed?.status).toBe(200);
    expect(completed?.body).toContain("echo: held through the flood");

    const cut = await rest[0]!.response;
    expect(cut?.status).toBe(408);
    expect(cut?.headers.connection).toBe("close");
    expect(JSON.parse(cut!.body).error.message).toContain("did not arrive within");
    await Promise.all(rest.map((connection) => connection.closed));
    // the address's slots are free again
    expect((await health("127.0.0.2").response)?.status).toBe(200);
  });
});
