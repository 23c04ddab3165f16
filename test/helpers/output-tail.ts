import { WAIT_TIMEOUT_MS } from "./wait.ts";

/**
 * Characters of a child's stream a test keeps, its last ones: a chatty process (a gateway at PRX_LOG=debug under
 * load) cannot grow the test's memory however long it runs.
 */
export const OUTPUT_TAIL_MAX_CHARS = 1024 * 1024;

/** What a wait for a line looks for: a text the line contains, a pattern, or a test of the line. */
export type LineMatch = string | RegExp | ((line: string) => boolean);

interface Waiter {
  matches(line: string): boolean;
  resolve(line: string): void;
  /** No line will match: `why`. */
  fail(why: string): void;
}

function matcher(match: LineMatch): (line: string) => boolean {
  if (typeof match === "string") return (line) => line.includes(match);
  if (match instanceof RegExp) return (line) => match.test(line);
  return match;
}

/**
 * A child's stdout or stderr read to its end as it comes, so the child never blocks on a full pipe however little
 * the test reads: its last `maxChars` characters are kept (`text()`), and a test can wait for a line (`line()`).
 */
export class OutputTail {
  private kept = "";
  /** The last line so far, until its "\n" comes. */
  private partial = "";
  /** Complete lines read since the start (kept or not). */
  private count = 0;
  private done = false;
  private readonly waiters = new Set<Waiter>();
  private readonly decoder = new TextDecoder();
  /** Resolves once the stream has ended (the child closed it, or exited). */
  readonly ended: Promise<void>;

  /** `already`: what the caller read from `stream` before handing it over (it is kept first). */
  constructor(
    stream: ReadableStream<Uint8Array>,
    already = "",
    private readonly maxChars = OUTPUT_TAIL_MAX_CHARS,
  ) {
    this.append(already);
    this.ended = this.drain(stream);
  }

  /** The stream's text so far: its last `maxChars` characters. */
  text(): string {
    return this.kept.length > this.maxChars ? this.kept.slice(-this.maxChars) : this.kept;
  }

  /** The complete lines kept (the first may have lost its start to the bound). */
  lines(): string[] {
    const lines = this.text().split("\n");
    lines.pop();
    return lines;
  }

  /** How many lines have come so far: a mark for `line(match, { after })`. */
  mark(): number {
    return this.count;
  }

  /**
   * The first line that matches, among those kept (after the `after` mark's, when given) and those read from now on.
   * Rejects, with the text's end, when the stream ends without one or `timeoutMs` passes (only so that a wait that
   * will never end is reported).
   */
  line(match: LineMatch, options: { after?: number; timeoutMs?: number } = {}): Promise<string> {
    const { after = 0, timeoutMs = WAIT_TIMEOUT_MS } = options;
    const matches = matcher(match);
    const kept = this.lines();
    const seen = kept.slice(Math.max(0, kept.length - (this.count - after))).find(matches);
    if (seen !== undefined) return Promise.resolve(seen);
    if (this.done) return Promise.reject(this.notFound(match, "the stream ended"));
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        waiter.fail(`${timeoutMs} ms passed`);
      }, timeoutMs);
      const waiter: Waiter = {
        matches,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
        fail: (why) => {
          clearTimeout(timer);
          reject(this.notFound(match, why));
        },
      };
      this.waiters.add(waiter);
    });
  }

  private async drain(stream: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (const chunk of stream) this.append(this.decoder.decode(chunk, { stream: true }));
    } catch (error) {
      // the pipe broke rather than ended: said in the text, where a test that reads it sees why it stops there
      this.append(`\n<reading the stream failed: ${(error as Error).message}>\n`);
    }
    // a last line without "\n" is a line once nothing can follow it
    const rest = this.decoder.decode();
    this.append(rest + (this.partial + rest === "" ? "" : "\n"));
    this.done = true;
    for (const waiter of this.waiters) waiter.fail("the stream ended");
    this.waiters.clear();
  }

  private append(text: string): void {
    if (text === "") return;
    this.kept += text;
    if (this.kept.length > 2 * this.maxChars) this.kept = this.kept.slice(-this.maxChars);
    if (this.waiters.size === 0) {
      // nobody waits: only how many lines ended and where the last one starts matter
      let at = -1;
      for (let next = text.indexOf("\n"); next >= 0; next = text.indexOf("\n", next + 1)) {
        this.count++;
        at = next;
      }
      this.partial = (at < 0 ? this.partial + text : text.slice(at + 1)).slice(-this.maxChars);
      return;
    }
    const parts = (this.partial + text).split("\n");
    this.partial = parts.pop()!.slice(-this.maxChars);
    this.count += parts.length;
    for (const line of parts) {
      for (const waiter of this.waiters) {
        if (!waiter.matches(line)) continue;
        this.waiters.delete(waiter);
        waiter.resolve(line);
      }
    }
  }

  private notFound(match: LineMatch, why: string): Error {
    const what = typeof match === "function" ? "the awaited line" : `a line matching ${String(match)}`;
    return new Error(`${why} before ${what}; the output ends:\n${this.text().slice(-4000)}`);
  }
}
