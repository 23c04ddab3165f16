/** `prx logs` through the built binary against a running gateway's logs/prx.log: the tail, its filters, and -f. */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { BINARY, ensureBinary, fakeProviderConfig, runPrx, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { waitFor } from "../helpers/wait.ts";

setDefaultTimeout(60_000);
let fake: FakeServer;
let gateway: RunningGateway;
let dir: string;
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  await ensureBinary();
  fake = startFakeOpenAI();
  const ws = tempWorkspace(fakeProviderConfig(fake.url), { prefix: "prx-logs-" });
  cleanups.push(ws.cleanup);
  dir = ws.dir;
  gateway = await startGatewayBinary(dir, { PRX_LOG: "info" });
}, 300_000);
afterAll(async () => {
  gateway.proc.kill();
  await gateway.proc.exited;
  await fake.stop();
  cleanups.forEach((cleanup) => cleanup());
});

test("the tail of the gateway's log, filtered by level and time; a workspace without a log says so", async () => {
  await fetch(`${gateway.url}/health`);
  const all = await waitFor(async () => {
    const result = await runPrx(["logs", "-w", dir]);
    return result.stdout.includes("GET /health") ? result : null;
  }, "the access-log line of GET /health");
  expect(all.code).toBe(0);
  expect(all.stdout).toMatch(/ INFO +\[/);
  const errors = await runPrx(["logs", "--level", "error", "-w", dir]);
  expect(errors.stdout).not.toContain("INFO");
  const future = await runPrx(["logs", "--since", "2999-01-01T00:00:00Z", "-w", dir]);
  expect(future.stdout).toBe("");
  const json = await runPrx(["logs", "--lines", "1", "--json", "-w", dir]);
  expect(json.stdout.trim().split("\n")).toHaveLength(1);
  expect(JSON.parse(json.stdout)).toMatchObject({ level: expect.any(String), text: expect.any(String) });
  const bad = await runPrx(["logs", "--level", "loud", "-w", dir]);
  expect(bad.code).toBe(2);
  const empty = tempWorkspace("", { prefix: "prx-logs-empty-" });
  cleanups.push(empty.cleanup);
  expect((await runPrx(["logs", "-w", empty.dir])).stderr).toContain("no log yet at");
});

test("-f shows lines as the gateway writes them, until Ctrl-C", async () => {
  const follow = Bun.spawn([BINARY, "logs", "-f", "--lines", "1", "-w", dir], { stdout: "pipe", stderr: "pipe" });
  let seen = "";
  const reader = (follow.stdout as ReadableStream<Uint8Array>).getReader();
  const reading = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      seen += new TextDecoder().decode(value);
    }
  })();
  // the newest line is shown first: following has begun
  await waitFor(() => seen.length > 0, "the first line");
  const marker = `/follow-${crypto.randomUUID()}`;
  await fetch(`${gateway.url}${marker}`);
  await waitFor(() => seen.includes(marker), () => `the followed line ${marker} in: ${seen}`);
  follow.kill("SIGINT");
  expect(await follow.exited).toBe(0);
  await reading;
});
