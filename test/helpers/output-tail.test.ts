/** OutputTail: a child's stream read to its end whatever the test reads, its end kept, lines awaited. */
import { expect, test } from "bun:test";
import { OutputTail } from "./output-tail.ts";

/** A child writing `bytes` bytes of numbered lines to stdout, then "done"; exits 0 once all is written. */
function chatty(bytes: number) {
  const script = `const line = "x".repeat(99); let n = 0; let out = "";
    while (out.length < ${bytes}) out += (n++) + line.slice(String(n).length) + "\\n";
    process.stdout.write(out + "done\\n");`;
  return Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "ignore" });
}

test("a child writing far more than a pipe holds is read to its end, though the test reads none of it; its last characters are kept", async () => {
  const child = chatty(4 * 1024 * 1024);
  const out = new OutputTail(child.stdout, "", 64 * 1024);
  expect(await child.exited).toBe(0);
  await out.ended;
  expect(out.text().length).toBe(64 * 1024);
  expect(out.text().endsWith("done\n")).toBe(true);
  expect(out.lines().at(-1)).toBe("done");
  expect(await out.line("done")).toBe("done");
});

/** A stream the test writes to. */
function fed() {
  let push: (text: string) => void = () => {};
  let end: () => void = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      push = (text) => controller.enqueue(new TextEncoder().encode(text));
      end = () => controller.close();
    },
  });
  return { stream, push, end };
}

test("a line is awaited among those kept and those to come; after a mark, only later ones count; a line split across chunks is one", async () => {
  const { stream, push, end } = fed();
  const out = new OutputTail(stream, "started\n");
  expect(await out.line("start")).toBe("started");
  push("reloaded: generation 1\n");
  await out.line("generation 1");
  const mark = out.mark();
  expect(mark).toBe(2);
  const next = out.line(/reloaded: generation (\d+)/, { after: mark });
  push("reloaded: gen");
  push("eration 2\nlast without a newline");
  expect(await next).toBe("reloaded: generation 2");
  end();
  await out.ended;
  // the last line counts once nothing can follow it
  expect(await out.line((line) => line.startsWith("last"))).toBe("last without a newline");
  expect(out.lines()).toEqual(["started", "reloaded: generation 1", "reloaded: generation 2", "last without a newline"]);
});

test("a wait for a line that never comes is reported with the output's end: when the stream ends, or its bound passes", async () => {
  const { stream, push, end } = fed();
  const out = new OutputTail(stream);
  push("one\n");
  const never = out.line("two", { timeoutMs: 60_000 });
  end();
  await expect(never).rejects.toThrow("the stream ended before a line matching two; the output ends:\none\n");
  await expect(out.line("three")).rejects.toThrow("the stream ended before a line matching three");
  const open = fed();
  const waiting = new OutputTail(open.stream).line("four", { timeoutMs: 1 });
  await expect(waiting).rejects.toThrow("1 ms passed before a line matching four");
  open.end();
});
