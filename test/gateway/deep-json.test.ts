/**
 * JSON nested past MAX_JSON_DEPTH against the built gateway: every route that takes JSON answers 400 naming the
 * limit (OpenAI-shaped under /v1/), a plugin writing such a protocol line is refused, and /health answers meanwhile.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { MAX_JSON_DEPTH } from "../../src/core/json/index.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { BINARY, ensureBinary, fakeProviderConfig } from "../helpers/binary.ts";
import { startHostileGateway, type HostileGateway } from "../plugins/remote-hostile/gateway.ts";

setDefaultTimeout(120_000);

const ATTACK_LEVELS = 100_000;
const nested = (levels: number) => "[".repeat(levels) + "]".repeat(levels);
const TOO_DEEP = `JSON nesting deeper than ${MAX_JSON_DEPTH} levels`;

let fake: FakeServer;
let gw: HostileGateway;

beforeAll(async () => {
  await ensureBinary();
  fake = startFakeOpenAI();
  gw = await startHostileGateway({
    binary: BINARY,
    plugin: { transport: "process" },
    config: fakeProviderConfig(fake.url, `models = ["fake-model"]\n[reliability]\nretries = 0\n`),
  });
}, 300_000);

afterAll(async () => {
  await gw?.stop();
  await fake?.stop();
});

const post = (path: string, body: string) =>
  gw.get(path, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body,
  });

/** A chat completion whose one tool's parameters make the whole body nest exactly `depth` levels. */
function toolsBody(depth: number): string {
  // body, tools, the tool, function, parameters, properties: 6 levels before the property's value
  const value = nested(depth - 6);
  return (
    '{"model":"fake-model","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":' +
    `{"name":"f","parameters":{"type":"object","properties":{"a":${value}}}}}]}`
  );
}

/** Ask /health every 20 ms until `work` settles; the statuses it got. */
async function probingHealth<T>(work: Promise<T>): Promise<{ result: T; statuses: number[] }> {
  const statuses: number[] = [];
  let done = false;
  const probing = (async () => {
    while (!done) {
      statuses.push((await fetch(`${gw.url}/health`)).status);
      await Bun.sleep(20);
    }
  })();
  try {
    return { result: await work, statuses };
  } finally {
    done = true;
    await probing;
  }
}

describe(`MAX_JSON_DEPTH = ${MAX_JSON_DEPTH} at the gateway (compiled binary)`, () => {
  test(`${ATTACK_LEVELS} nested [ to every JSON route: 400 naming the limit, /health answering meanwhile`, async () => {
    const attack = nested(ATTACK_LEVELS);
    const paths = ["/v1/chat/completions", "/api/memory", "/webhook", "/mcp", "/api/sessions/deep/message", "/plugins/hostile/echo"];
    const { result, statuses } = await probingHealth(
      Promise.all(paths.map(async (path) => ({ path, response: await post(path, attack) }))),
    );
    for (const { path, response } of result) {
      const body = (await response.json()) as { error: { message: string; code: string } };
      expect({ path, status: response.status }).toEqual({ path, status: 400 });
      expect(body.error.message).toContain(TOO_DEEP);
    }
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect((await fetch(`${gw.url}/health`)).status).toBe(200);
  });

  test("OpenAI-compatible route: the body at the limit is answered, one level more is OpenAI's 400 shape", async () => {
    const at = await post("/v1/chat/completions", toolsBody(MAX_JSON_DEPTH));
    expect(at.status).toBe(200);
    expect(((await at.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe("echo: hi");
    const past = await post("/v1/chat/completions", toolsBody(MAX_JSON_DEPTH + 1));
    expect(past.status).toBe(400);
    expect(await past.json()).toEqual({
      error: {
        // the bracket opening level 65: the 59th of the property's value
        message: `the request body: ${TOO_DEEP} at character ${toolsBody(MAX_JSON_DEPTH + 1).indexOf('"a":') + 4 + MAX_JSON_DEPTH - 6}`,
        type: "invalid_request_error",
        param: null,
        code: "LIMIT_EXCEEDED",
        hint: expect.stringContaining(`at most ${MAX_JSON_DEPTH}`),
      },
    });
    const attack = await post("/v1/chat/completions", toolsBody(ATTACK_LEVELS));
    expect(attack.status).toBe(400);
    expect(((await attack.json()) as { error: { message: string } }).error.message).toContain(TOO_DEEP);
  });

  test("a plugin writing a protocol line of 100,000 levels: refused and counted, the plugin and /health still serve", async () => {
    const before = Number((await gw.remote()).malformed);
    const { result, statuses } = await probingHealth(gw.get(`/plugins/hostile/deep?depth=${ATTACK_LEVELS}`));
    expect(result.status).toBe(200);
    const deadline = Date.now() + 10_000;
    let remote = await gw.remote();
    while (Number(remote.malformed) === before && Date.now() < deadline) remote = await gw.remote();
    expect(Number(remote.malformed)).toBe(before + 1);
    expect(String(remote.last_error)).toContain("JSON nesting deeper than");
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(await (await gw.get("/plugins/hostile/noop")).json()).toEqual({ result: "ok" });
    const echoed = await post("/plugins/hostile/echo", nested(MAX_JSON_DEPTH));
    expect(await echoed.json()).toEqual({ echoed: JSON.parse(nested(MAX_JSON_DEPTH)) });
  });
});
