import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatLogLine } from "../../src/core/logger.ts";
import { LOG_TAIL_MAX_BYTES, LOG_TAIL_MAX_LINES, LogFollower, parseLogLines, readLogTail } from "../../src/gateway/log-tail.ts";
import { LOG_STREAMS_MAX, logRoutes } from "../../src/gateway/routes/logs.ts";
import { harness, json, type Harness } from "./harness.ts";

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const at = (s: number) => T0 + s * 1000;

let dir: string;
let path: string;
let h: Harness;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "prx-console-pages-logs-"));
  path = join(dir, "prx.log");
  h = await harness({ deps: { mounts: [logRoutes(path)] } });
});
afterAll(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

function writeLog(lines: string[]): void {
  writeFileSync(path, lines.map((l) => l + "\n").join(""));
}

describe("reading the log file", () => {
  test("a logger line keeps its time, level and scope; a line that is not one continues the line before at its level", () => {
    const lines = parseLogLines(
      [formatLogLine("error", "gateway", "turn failed", { id: 1 }, at(0)), "    at run (agent.ts:1)", formatLogLine("info", "gateway.access", "GET / 200", undefined, at(1))].join("\n"),
    );
    expect(lines.map((l) => [l.level, l.scope, l.at])).toEqual([
      ["error", "gateway", new Date(at(0)).toISOString()],
      ["error", null, null],
      ["info", "gateway.access", new Date(at(1)).toISOString()],
    ]);
    expect(lines[0]!.text).toBe(formatLogLine("error", "gateway", "turn failed", { id: 1 }, at(0)));
  });

  test("GET /api/logs: the lines at ?level and above, after ?since; no file yet is no lines", async () => {
    rmSync(path, { force: true });
    expect(await json(h.call("/api/logs"))).toEqual({ path, lines: [] });
    writeLog([
      formatLogLine("debug", "mcp", "listing tools", undefined, at(0)),
      formatLogLine("warn", "channels", "telegram restarting", undefined, at(1)),
      formatLogLine("info", "gateway.access", "GET /api/status 200", undefined, at(2)),
      formatLogLine("error", "gateway", "turn failed", undefined, at(3)),
      "Error: boom",
    ]);
    const texts = async (query: string) => (await json(h.call(`/api/logs${query}`))).lines.map((l: { text: string }) => l.text);
    expect(await texts("")).toHaveLength(5);
    expect(await texts("?level=warn")).toEqual([
      formatLogLine("warn", "channels", "telegram restarting", undefined, at(1)),
      formatLogLine("error", "gateway", "turn failed", undefined, at(3)),
      "Error: boom",
    ]);
    expect(await texts(`?level=info&since=${new Date(at(2)).toISOString()}`)).toEqual([formatLogLine("error", "gateway", "turn failed", undefined, at(3)), "Error: boom"]);
  });

  test("the API reference documents both routes with their query and answer", async () => {
    const document = await json(h.call("/swagger/json", { auth: false }));
    for (const path of ["/api/logs", "/api/logs/stream"]) {
      const get = document.paths[path].get;
      expect(get.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`).sort(), path).toEqual(["query:level", "query:since"]);
      expect(get.security).toEqual([{ bearer: [] }]);
    }
    expect(document.paths["/api/logs"].get.responses["200"].content["application/json"].schema.properties.lines.type).toBe("array");
  });

  test("a bad level or time is a 400 naming it", async () => {
    const level = await h.call("/api/logs?level=loud");
    expect(level.status).toBe(400);
    expect((await json(level)).error.message).toContain("level");
    expect((await h.call("/api/logs?since=yesterday")).status).toBe(400);
  });

  test(`an answer reads at most the last LOG_TAIL_MAX_BYTES of the file (whole lines) and carries at most LOG_TAIL_MAX_LINES`, () => {
    // lines of 1024 bytes: exactly 256 fit in the bytes read, the cut falls on a line's start
    const line = formatLogLine("info", "x", "", undefined, at(0)).padEnd(1023, "y");
    writeFileSync(path, `${line}\n`.repeat(600));
    expect(readLogTail(path, "trace", null).lines).toHaveLength(LOG_TAIL_MAX_BYTES / 1024);
    // one byte more and the first of them is cut: only whole lines are kept
    writeFileSync(path, `${line}\n`.repeat(599) + `${line}y\n`);
    const { lines } = readLogTail(path, "trace", null);
    expect(lines).toHaveLength(LOG_TAIL_MAX_BYTES / 1024 - 1);
    expect(lines.slice(0, -1).every((l) => l.text === line)).toBe(true);
    const short = formatLogLine("info", "x", "y", undefined, at(0));
    writeFileSync(path, `${short}\n`.repeat(LOG_TAIL_MAX_LINES + 1));
    expect(readLogTail(path, "trace", null).lines).toHaveLength(LOG_TAIL_MAX_LINES);
    writeFileSync(path, `${short}\n`.repeat(LOG_TAIL_MAX_LINES));
    expect(readLogTail(path, "trace", null).lines).toHaveLength(LOG_TAIL_MAX_LINES);
  });
});

describe("following the log", () => {
  test("a follower returns whole new lines only, holds a half-written one, and starts over after a rotation", () => {
    writeLog([formatLogLine("info", "a", "old", undefined, at(0))]);
    const follower = new LogFollower(path, readLogTail(path, "trace", null).end);
    expect(follower.next("trace")).toEqual([]);
    appendFileSync(path, formatLogLine("warn", "a", "new", undefined, at(1)) + "\n" + formatLogLine("info", "a", "half", undefined, at(2)));
    expect(follower.next("trace").map((l) => l.text)).toEqual([formatLogLine("warn", "a", "new", undefined, at(1))]);
    appendFileSync(path, "\n");
    expect(follower.next("warn")).toEqual([]);
    renameSync(path, `${path}.1`);
    writeLog([formatLogLine("error", "a", "after rotation", undefined, at(3))]);
    expect(follower.next("warn").map((l) => l.text)).toEqual([formatLogLine("error", "a", "after rotation", undefined, at(3))]);
  });

  test("GET /api/logs/stream sends the tail, then new lines as they are written; LOG_STREAMS_MAX at once, one more is 429", async () => {
    writeLog([formatLogLine("warn", "a", "first", undefined, at(0)), formatLogLine("debug", "a", "quiet", undefined, at(1))]);
    const streams = await Promise.all(Array.from({ length: LOG_STREAMS_MAX }, () => h.call("/api/logs/stream?level=info")));
    expect(streams.map((s) => s.status)).toEqual(Array(LOG_STREAMS_MAX).fill(200));
    expect((await h.call("/api/logs/stream")).status).toBe(429);
    const reader = streams[0]!.body!.pipeThrough(new TextDecoderStream()).getReader();
    const nextEvent = async () => {
      for (;;) {
        const { value } = await reader.read();
        if (value && value.startsWith("event: lines")) return JSON.parse(value.split("data: ")[1]!) as { lines: Array<{ text: string }> };
      }
    };
    expect((await nextEvent()).lines.map((l) => l.text)).toEqual([formatLogLine("warn", "a", "first", undefined, at(0))]);
    appendFileSync(path, formatLogLine("debug", "a", "still quiet", undefined, at(2)) + "\n" + formatLogLine("error", "a", "live", undefined, at(3)) + "\n");
    expect((await nextEvent()).lines.map((l) => l.text)).toEqual([formatLogLine("error", "a", "live", undefined, at(3))]);
    await reader.cancel();
    for (const s of streams.slice(1)) await s.body!.cancel();
    // a closed stream frees its place
    await Bun.sleep(50);
    const again = await h.call("/api/logs/stream");
    expect(again.status).toBe(200);
    await again.body!.cancel();
  });
});
