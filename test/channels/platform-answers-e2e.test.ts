/**
 * The built binary: `prx gateway` supervises a Telegram channel whose Bot API misbehaves. An answer to getUpdates one
 * byte past PLATFORM_MAX_RESPONSE_BYTES (streamed by the fake, never held whole) is abandoned; 409, 429, 500 and a
 * body that is not JSON are retried. Each of them is the channel's last error, with its time, in /api/channels and
 * `prx channel status`, and its warning is in the workspace's logs/prx.log, while the channel keeps running and
 * answers messages once the platform recovers.
 */
import { timeText } from "../../src/core/time-text.ts";
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PLATFORM_MAX_RESPONSE_BYTES } from "../../src/channels/limits.ts";
import { startFakeTelegram, type FakeTelegram, type ScriptedFailure } from "../fakes/telegram-server.ts";
import { fakeProviderConfig, runPrx, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { binarySuite } from "../helpers/binary-suite.ts";
import { waitFor } from "../helpers/wait.ts";

setDefaultTimeout(60_000);

interface Info {
  name: string;
  state: string;
  pid: number | null;
  last_error: string | null;
  last_error_at: string | null;
}

const suite = binarySuite();
let tg: FakeTelegram;
let gateway: RunningGateway;
let dir: string;
let headers: Record<string, string>;

async function telegramInfo(): Promise<Info> {
  const response = await fetch(`${gateway.url}/api/channels`, { headers });
  if (!response.ok) throw new Error(`/api/channels answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { channels: Info[] }).channels.find((c) => c.name === "tg")!;
}

/** Make the next getUpdates answer so, and wait until the channel's last error says `expected`. */
async function answerGetUpdates(failure: ScriptedFailure, expected: string): Promise<Info> {
  const before = (await telegramInfo()).last_error_at;
  tg.fail("getUpdates", failure);
  let last: Info | undefined;
  await waitFor(
    async () => ((last = await telegramInfo()), last.last_error_at !== before && (last.last_error ?? "").includes(expected)),
    () => `the last error to say "${expected}": ${JSON.stringify(last)}`,
  );
  return last!;
}

const logFile = () => readFileSync(join(dir, "logs", "prx.log"), "utf8");

beforeAll(async () => {
  tg = startFakeTelegram();
  dir = suite.workspace(
    fakeProviderConfig(
      suite.fake.url,
      // the waits below ask /api/channels often
      `[gateway]\nrate_limit_per_minute = 100000\nrate_limit_per_token_per_minute = 100000\n` +
        `[channels.tg]\nkind = "telegram"\nenabled = true\ntoken_env = "TG_TOKEN"\napi_base_url = "${tg.url}"\npoll_timeout_s = 1\ndm_policy = "open"\n`,
    ),
  );
  gateway = await startGatewayBinary(dir, { TG_TOKEN: tg.token });
  const paired = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
  headers = { authorization: `Bearer ${((await paired.json()) as { token: string }).token}` };
  await waitFor(async () => (await telegramInfo()).state === "running", "the channel process to run");
}, 120_000);

afterAll(async () => {
  gateway.proc.kill("SIGTERM");
  await gateway.proc.exited;
  await tg.stop();
});

test("a getUpdates answer one byte past the cap is abandoned and is the channel's last error, in the API and the log file", async () => {
  const info = await answerGetUpdates({ status: 200, description: "", streamBytes: PLATFORM_MAX_RESPONSE_BYTES + 1 }, "larger than");
  expect(info.state).toBe("running");
  expect(info.last_error).toContain(`telegram: getUpdates: HTTP 200 answer larger than ${PLATFORM_MAX_RESPONSE_BYTES} bytes; not read further`);
  expect(Date.parse(info.last_error_at!)).toBeGreaterThan(Date.now() - 60_000);
  await waitFor(() => logFile().includes("answer larger than"), () => `the warning in logs/prx.log:\n${logFile()}`);
  expect(logFile()).toMatch(/WARN +\[channel\.tg\] getUpdates failed, retrying in \d+ ms: telegram: getUpdates: HTTP 200 answer larger than/);
});

test("409, 429, 500 and a body that is not JSON: each is the last error with its time, and a warning in logs/prx.log", async () => {
  const answers: Array<[ScriptedFailure, string]> = [
    [{ status: 409, description: "Conflict: terminated by other getUpdates request" }, "409 Conflict"],
    [{ status: 429, description: "Too Many Requests: retry after 1", retry_after: 1 }, "429 Too Many Requests"],
    [{ status: 500, description: "Internal Server Error" }, "500 Internal Server Error"],
    [{ status: 200, description: "", garbage: true }, "HTTP 200 with a body that is not JSON"],
  ];
  let previousAt = 0;
  for (const [failure, expected] of answers) {
    const info = await answerGetUpdates(failure, expected);
    expect(info.state).toBe("running");
    expect(Date.parse(info.last_error_at!)).toBeGreaterThanOrEqual(previousAt);
    previousAt = Date.parse(info.last_error_at!);
    await waitFor(() => logFile().includes(expected), () => `"${expected}" in logs/prx.log:\n${logFile()}`);
  }
  // the channel still answers once the platform does
  tg.message({ chatId: 7, text: "still there?" });
  expect((await tg.waitForSent(1, 30_000))[0]!.visible).toBe("echo: still there?");
});

test("prx channel status shows the last error and when it happened", async () => {
  const info = await telegramInfo();
  let status = await runPrx(["channel", "status", "--json", "-w", dir]);
  // the liveness row is written right after the error is reported to the gateway
  await waitFor(async () => {
    status = await runPrx(["channel", "status", "--json", "-w", dir]);
    return status.stdout.includes("not JSON");
  }, () => `the status row: ${status.stdout}${status.stderr}`);
  const [row] = JSON.parse(status.stdout) as Array<{ channel: string; last_error: string; last_error_at: number }>;
  expect(row!.channel).toBe("tg");
  expect(row!.last_error).toContain("HTTP 200 with a body that is not JSON");
  expect(row!.last_error_at).toBe(Date.parse(info.last_error_at!));
  const text = await runPrx(["channel", "status", "-w", dir]);
  expect(text.code).toBe(0);
  expect(text.stdout).toContain(`last error at ${timeText(info.last_error_at!)}: `);
  expect(text.stdout).toContain("HTTP 200 with a body that is not JSON");
});
