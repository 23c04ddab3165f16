/** The pieces that keep a plugin's output from flooding the host: budgets, the stderr tail, garbage lines, the pump. */
import { describe, expect, test } from "bun:test";
import type { Logger } from "../../../src/core/logger.ts";
import { LineDecoder } from "../../../src/plugins/remote/protocol/index.ts";
import { decodeWorkerMessage } from "../../../src/plugins/remote/supervisor/inbound.ts";
import {
  REMOTE_LOG_SUMMARY_INTERVAL_MS,
  REMOTE_MAX_MESSAGE_BYTES,
  REMOTE_OUTPUT_MAX_BYTES_PER_INTERVAL,
  REMOTE_OUTPUT_MAX_LINES_PER_INTERVAL,
  REMOTE_PLUGIN_LOG_MAX_CHARS,
  REMOTE_STDERR_MAX_LINE_CHARS,
  REMOTE_STDERR_TAIL_LINES,
} from "../../../src/plugins/remote/limits.ts";
import { HOST_LOG_LIMITS, OutputBudget, PLUGIN_OUTPUT_LIMITS } from "../../../src/plugins/remote/output-budget.ts";
import { PluginOutputLog } from "../../../src/plugins/remote/host/output/plugin-output.ts";
import { pumpStream } from "../../../src/plugins/remote/transport/pump.ts";
import { TailLines } from "../../../src/plugins/remote/host/output/stderr-tail.ts";
import { formatConsoleArgs } from "../../../src/plugins/remote/worker-runtime/console-guard.ts";

const enc = new TextEncoder();

/** A clock the test moves by hand. */
function clock() {
  let t = 0;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

/** A Logger that keeps its lines. */
function recorder(): Logger & { lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }> } {
  const lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    void lines.push({ level, message, ...(fields ? { fields } : {}) });
  const logger = {
    lines,
    trace: at("trace"),
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    child: () => logger,
  };
  return logger;
}

describe("OutputBudget", () => {
  test(`${REMOTE_OUTPUT_MAX_LINES_PER_INTERVAL} lines pass in an interval; one more is dropped and reported once`, async () => {
    const c = clock();
    const reports: number[] = [];
    const budget = new OutputBudget({ ...PLUGIN_OUTPUT_LIMITS, intervalMs: 20 }, (n) => reports.push(n), c.now);
    for (let i = 0; i < REMOTE_OUTPUT_MAX_LINES_PER_INTERVAL; i++) expect(budget.take()).toBe(true);
    expect(budget.take()).toBe(false);
    expect(budget.take()).toBe(false);
    expect(reports).toEqual([]);
    await Bun.sleep(40);
    expect(reports).toEqual([2]);
    c.advance(20);
    expect(budget.take()).toBe(true);
    expect(budget.droppedTotal).toBe(2);
  });

  test(`a line is admitted while the interval used less than ${REMOTE_OUTPUT_MAX_BYTES_PER_INTERVAL} bytes`, () => {
    const c = clock();
    const budget = new OutputBudget(PLUGIN_OUTPUT_LIMITS, () => {}, c.now);
    expect(budget.take()).toBe(true);
    budget.charge(REMOTE_OUTPUT_MAX_BYTES_PER_INTERVAL - 1);
    expect(budget.take()).toBe(true);
    budget.charge(1);
    expect(budget.take()).toBe(false);
    budget.flush();
  });
});

describe("PluginOutputLog", () => {
  test("refusals: the first of an interval is logged with its detail, the rest as one summary per interval", () => {
    const c = clock();
    const log = recorder();
    const out = new PluginOutputLog(log, PLUGIN_OUTPUT_LIMITS, c.now);
    let made = 0;
    const lazy = () => (made++, "garbage");
    for (let i = 1; i <= 10_000; i++) out.refused(i % 2 ? "malformed" : "oversize", lazy, i);
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]!.fields).toEqual({ detail: "garbage", count: 1 });
    out.flush();
    expect(log.lines).toHaveLength(2);
    expect(log.lines[1]!.fields).toEqual({ malformed: 4_999, oversize: 5_000, last: "garbage" });
    // details of refusals nobody logs are never made
    expect(made).toBe(2);
    c.advance(REMOTE_LOG_SUMMARY_INTERVAL_MS);
    out.refused("malformed", "later", 1);
    expect(log.lines).toHaveLength(3);
  });

  test("plugin log lines: the budget per interval passes, the rest is counted; long lines are cut", () => {
    const c = clock();
    const log = recorder();
    const out = new PluginOutputLog(log, PLUGIN_OUTPUT_LIMITS, c.now);
    out.line("error", "y".repeat(REMOTE_PLUGIN_LOG_MAX_CHARS + 10), { big: "z".repeat(REMOTE_PLUGIN_LOG_MAX_CHARS) });
    expect(log.lines[0]!.message).toEndWith("... [10 chars cut]");
    expect(Object.keys(log.lines[0]!.fields!)).toEqual(["truncated"]);
    for (let i = 0; i < 1_000; i++) out.line("info", "hello");
    expect(log.lines.length).toBeLessThanOrEqual(REMOTE_OUTPUT_MAX_LINES_PER_INTERVAL);
    expect(out.droppedLogLines).toBe(1_001 - log.lines.length);
    out.flush();
    expect(log.lines.at(-1)!.message).toContain(`${out.droppedLogLines} log lines of the remote plugin dropped`);
  });
});

test(`the host logs ${HOST_LOG_LIMITS.lines} log lines of a plugin per interval; one more is dropped`, () => {
  const c = clock();
  const log = recorder();
  const out = new PluginOutputLog(log, HOST_LOG_LIMITS, c.now);
  for (let i = 0; i < HOST_LOG_LIMITS.lines + 1; i++) out.line("info", "l");
  expect(log.lines).toHaveLength(HOST_LOG_LIMITS.lines);
  expect(out.droppedLogLines).toBe(1);
  out.flush();
});

describe("TailLines", () => {
  test(`keeps the last ${REMOTE_STDERR_TAIL_LINES} lines across chunks, joins split lines, cuts long ones`, () => {
    const tail = new TailLines();
    tail.push(enc.encode("first\nsplit "));
    tail.push(enc.encode("line\n\n"));
    expect(tail.lines()).toEqual(["first", "split line"]);
    const many = Array.from({ length: 100_000 }, (_, i) => `line ${i}`).join("\n") + "\nunfinished";
    tail.push(enc.encode(many));
    const kept = tail.lines();
    expect(kept).toHaveLength(REMOTE_STDERR_TAIL_LINES);
    expect(kept.at(-1)).toBe("line 99999");
    tail.push(enc.encode(` end\n${"w".repeat(REMOTE_STDERR_MAX_LINE_CHARS + 1)}\n`));
    expect(tail.lines().slice(-2)).toEqual(["unfinished end", `${"w".repeat(REMOTE_STDERR_MAX_LINE_CHARS)}...`]);
  });

  test(`a line of ${REMOTE_STDERR_MAX_LINE_CHARS} bytes is kept whole; split over chunks one byte more is cut`, () => {
    const tail = new TailLines();
    tail.push(enc.encode("a".repeat(REMOTE_STDERR_MAX_LINE_CHARS) + "\n"));
    tail.push(enc.encode("b".repeat(REMOTE_STDERR_MAX_LINE_CHARS)));
    tail.push(enc.encode("b\n"));
    const [a, b] = ["a".repeat(REMOTE_STDERR_MAX_LINE_CHARS), "b".repeat(REMOTE_STDERR_MAX_LINE_CHARS)];
    expect(tail.lines()).toEqual([a, `${b}...`]);
  });
});

describe("garbage from a plugin", () => {
  test("LineDecoder reports lines that are not JSON objects without decoding them; oversize stays oversize", () => {
    const lines: string[] = [];
    const rejected: string[] = [];
    const oversize: number[] = [];
    const d = new LineDecoder(
      (l) => lines.push(l),
      (n) => oversize.push(n),
      16,
      (chunk, start, end) => rejected.push(new TextDecoder().decode(chunk.subarray(start, end))),
    );
    d.push(enc.encode('x\n  {"a":1}\nnot json\n\n{"b"'));
    d.push(enc.encode(':2}\n' + "y".repeat(17) + "\n"));
    expect(lines).toEqual(['  {"a":1}', '{"b":2}']);
    expect(rejected).toEqual(["x", "not json"]);
    expect(oversize).toEqual([17]);
  });

  test("a Worker's string that is not a JSON object is malformed at once; a huge one is oversize", () => {
    expect(decodeWorkerMessage("x")).toMatchObject({ ok: false, kind: "malformed" });
    expect(decodeWorkerMessage("y".repeat(REMOTE_MAX_MESSAGE_BYTES + 1))).toMatchObject({ ok: false, kind: "oversize" });
  });

  test("pumpStream lets the event loop run in the middle of a chunk that takes longer than its slice", async () => {
    const total = 400_000;
    let rejected = 0;
    const d = new LineDecoder(
      () => {},
      () => {},
      undefined,
      (_chunk, _start, _end, count) => void (rejected += count),
    );
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(enc.encode("x\n".repeat(total)));
        controller.close();
      },
    });
    let seenAt = -1;
    setImmediate(() => (seenAt = rejected));
    await pumpStream(stream, (chunk, from, until) => d.push(chunk, from, until), 0.5);
    expect(rejected).toBe(total);
    expect(seenAt).toBeGreaterThan(0);
    expect(seenAt).toBeLessThan(total);
  });
});

test("a run of garbage lines is reported once with its count, and logged as one line plus one summary", () => {
  const runs: Array<[string, number]> = [];
  const d = new LineDecoder(
    () => {},
    () => {},
    undefined,
    (chunk, start, end, count) => runs.push([new TextDecoder().decode(chunk.subarray(start, end)), count]),
  );
  d.push(enc.encode("a\nb\nc\n{}\nd\n"));
  expect(runs).toEqual([
    ["a", 3],
    ["d", 1],
  ]);
  const log = recorder();
  const out = new PluginOutputLog(log);
  out.refused("malformed", "a", 3, 3);
  out.flush();
  expect(log.lines.map((l) => l.fields)).toEqual([
    { detail: "a", count: 1 },
    { malformed: 2, oversize: 0, last: "a" },
  ]);
});

test("console lines are formatted as console.log formats them", () => {
  expect(formatConsoleArgs(["a", 1, { b: [2] }])).toBe('a 1 {\n  b: [ 2 ],\n}');
  expect(formatConsoleArgs(["%s has %d", "x", 3, "more"])).toBe("x has 3 more");
  expect(formatConsoleArgs(["100%"])).toBe("100%");
});
