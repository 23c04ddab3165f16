import { join } from "node:path";
import { STANDALONE_HANDLED_COMMAND, STANDALONE_LAST_BODY_COMMAND } from "../fakes/common.ts";

/** Reads a child's stdout line by line, keeping what follows a line for the next read. */
class LineReader {
  private readonly reader: { read(): Promise<{ done: boolean; value?: Uint8Array }> };
  private readonly decoder = new TextDecoder();
  private buffered = "";

  constructor(stream: ReadableStream<Uint8Array>) {
    this.reader = stream.getReader();
  }

  async next(what: string): Promise<string> {
    for (;;) {
      const end = this.buffered.indexOf("\n");
      if (end >= 0) {
        const line = this.buffered.slice(0, end);
        this.buffered = this.buffered.slice(end + 1);
        return line;
      }
      const { done, value } = await this.reader.read();
      if (done) throw new Error(`${what} closed its stdout`);
      this.buffered += this.decoder.decode(value, { stream: true });
    }
  }
}

type Child = Bun.Subprocess<"pipe", "pipe", "inherit">;

/** Start a helper process that prints its URL on the first line of stdout (bare proxy, standalone fake). */
export async function spawnAnnouncing(
  cmd: string[],
  what: string,
): Promise<{ proc: Child; url: string; lines: LineReader }> {
  const proc = Bun.spawn(cmd, { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const lines = new LineReader(proc.stdout);
  const url = (await lines.next(`${what} (before printing its URL)`)).trim();
  return { proc, url, lines };
}

/** The OpenAI fake in its own process, as a provider would be: the benchmark's client does not share its loop. */
export interface StandaloneFake {
  /** Ends with /v1. */
  url: string;
  pid: number;
  /** The fake's own time per request, by the text of its last message, since the previous call. */
  handled(): Promise<Map<string, number>>;
  /** The body of the last chat request it received (null before any). */
  lastBody(): Promise<unknown>;
  stop(): Promise<void>;
}

export async function startStandaloneFake(latencyMs: number, jitterMs = 0): Promise<StandaloneFake> {
  const source = join(import.meta.dir, "..", "fakes", "openai-server.ts");
  const args = ["--port", "0", "--latency-ms", String(latencyMs), "--latency-jitter-ms", String(jitterMs)];
  const { proc, url, lines } = await spawnAnnouncing([process.execPath, source, ...args], "the standalone fake");
  const ask = async (command: string): Promise<unknown> => {
    proc.stdin.write(`${command}\n`);
    await proc.stdin.flush();
    return JSON.parse(await lines.next("the standalone fake"));
  };
  return {
    url,
    pid: proc.pid,
    handled: async () => new Map((await ask(STANDALONE_HANDLED_COMMAND)) as Array<[string, number]>),
    lastBody: () => ask(STANDALONE_LAST_BODY_COMMAND),
    async stop() {
      proc.kill();
      await proc.exited;
    },
  };
}
