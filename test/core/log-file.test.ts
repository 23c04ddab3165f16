import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  LOG_FILE_BUFFER_MAX_BYTES,
  LOG_FILE_KEEP,
  LOG_FILE_MAX_BYTES,
  LOG_FILE_NAME,
  RotatingLogFile,
} from "../../src/core/log-file.ts";

const root = mkdtempSync(join(tmpdir(), "prx-logfile-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(mkdtempSync(join(root, `d${n++}-`)), LOG_FILE_NAME);

/** `count` lines of `size` bytes each (newline included), every one distinct. */
function lines(count: number, size: number, tag = "l"): string[] {
  return Array.from({ length: count }, (_, i) => {
    const head = `${tag}${i} `;
    return head + "x".repeat(size - head.length - 1) + "\n";
  });
}

describe("rotating log file", () => {
  test(`a file reaches exactly LOG_FILE_MAX_BYTES; the next line rotates it to ${LOG_FILE_NAME}.1`, async () => {
    const path = fresh();
    const log = new RotatingLogFile(path);
    const size = 64 * 1024;
    for (const line of lines(LOG_FILE_MAX_BYTES / size, size)) {
      log.write(line);
      await log.flush(); // each write stays well inside the buffer bound
    }
    expect(statSync(path).size).toBe(LOG_FILE_MAX_BYTES);
    expect(existsSync(`${path}.1`)).toBe(false);
    log.write("one more\n");
    await log.close();
    expect(statSync(`${path}.1`).size).toBe(LOG_FILE_MAX_BYTES);
    expect(readFileSync(path, "utf8")).toBe("one more\n");
  });

  test(`keeps LOG_FILE_KEEP (${LOG_FILE_KEEP}) rotated files, the oldest dropped`, async () => {
    const path = fresh();
    const log = new RotatingLogFile(path, { maxBytes: 100 });
    // 10 bytes a line, 10 lines a file: 80 lines fill prx.log and 7 rotations
    for (const line of lines(80, 10)) log.write(line);
    await log.close();
    const names = readdirSync(join(path, "..")).sort();
    expect(names).toEqual([LOG_FILE_NAME, ...Array.from({ length: LOG_FILE_KEEP }, (_, i) => `${LOG_FILE_NAME}.${i + 1}`)]);
    expect(readFileSync(path, "utf8")).toStartWith("l70 ");
    expect(readFileSync(`${path}.1`, "utf8")).toStartWith("l60 ");
    expect(readFileSync(`${path}.${LOG_FILE_KEEP}`, "utf8")).toStartWith(`l${70 - 10 * LOG_FILE_KEEP} `);
    for (const name of names) expect(statSync(join(path, "..", name)).size).toBe(100);
  });

  test("an existing file counts toward the cap; a line longer than the cap goes alone into one file", async () => {
    const path = fresh();
    writeFileSync(path, "x".repeat(95));
    const log = new RotatingLogFile(path, { maxBytes: 100 });
    log.write("12345\n"); // 101 bytes: rotate first
    log.write("y".repeat(150) + "\n");
    log.write("after\n");
    await log.close();
    expect(readFileSync(`${path}.3`, "utf8")).toBe("x".repeat(95));
    expect(readFileSync(`${path}.2`, "utf8")).toBe("12345\n");
    expect(readFileSync(`${path}.1`, "utf8")).toBe("y".repeat(150) + "\n");
    expect(readFileSync(path, "utf8")).toBe("after\n");
  });

  test("write never touches the disk: lines appear only once the asynchronous flush has run", async () => {
    const path = fresh();
    const log = new RotatingLogFile(path);
    log.write("hello\n");
    expect(existsSync(path)).toBe(false);
    await log.flush();
    expect(readFileSync(path, "utf8")).toBe("hello\n");
    await log.close();
  });

  test("writeNow appends at once, after the lines still pending, in the same order", async () => {
    const path = fresh();
    const log = new RotatingLogFile(path);
    log.write("pending\n");
    log.writeNow("now\n");
    expect(readFileSync(path, "utf8")).toBe("pending\nnow\n");
    await log.flush();
    log.write("after\n");
    await log.close();
    expect(readFileSync(path, "utf8")).toBe("pending\nnow\nafter\n");
  });

  test("writeNow keeps the LOG_FILE_BUFFER_MAX_BYTES bound: a piece past it is dropped and counted", async () => {
    const path = fresh();
    const log = new RotatingLogFile(path);
    const atBound = "x".repeat(LOG_FILE_BUFFER_MAX_BYTES - 1) + "\n";
    log.writeNow(atBound);
    expect(log.dropped).toBe(0);
    log.writeNow(atBound + "y\n");
    expect(log.dropped).toBe(2);
    await log.close();
    expect(statSync(path).size).toBe(LOG_FILE_BUFFER_MAX_BYTES);
  });

  test(`LOG_FILE_BUFFER_MAX_BYTES pending bytes are kept; a line past them is dropped, counted and reported`, async () => {
    const path = fresh();
    const log = new RotatingLogFile(path);
    const size = 1024;
    // all written in one turn of the event loop: nothing is flushed in between
    for (const line of lines(LOG_FILE_BUFFER_MAX_BYTES / size, size)) log.write(line);
    expect(log.dropped).toBe(0);
    log.write("x\n");
    expect(log.dropped).toBe(1);
    await log.flush();
    log.write("later\n");
    await log.close();
    const written = readFileSync(path, "utf8").split("\n");
    expect(written.filter((line) => /^l\d+ /.test(line))).toHaveLength(LOG_FILE_BUFFER_MAX_BYTES / size);
    expect(written.at(-3)).toEndWith("WARN  [log] 1 log lines were dropped: the log file could not keep up");
    expect(written.slice(-2)).toEqual(["later", ""]);
  });

  test("lines still pending when the process exits are written synchronously", async () => {
    const path = fresh();
    const script = `import { RotatingLogFile } from ${JSON.stringify(join(import.meta.dir, "../../src/core/log-file.ts"))};
      new RotatingLogFile(${JSON.stringify(path)}).write("last words\\n"); process.exit(0);`;
    const proc = Bun.spawn([process.execPath, "-e", script], { stderr: "pipe" });
    expect(await proc.exited).toBe(0);
    expect(readFileSync(path, "utf8")).toBe("last words\n");
  });
});
