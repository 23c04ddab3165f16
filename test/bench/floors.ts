/**
 * Floors for start-up measures: bare programs compiled the way prx is (`--compile --bytecode`, ESM, minified), so a
 * ratio to them says what prx itself adds on this machine, now. Absolute times move 2-3x between machines; a ratio
 * measured in alternation (A B A B ...) does not.
 */
import { chmodSync, copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stats } from "./types.ts";

/** `console.log("hello")`: the floor of a CLI invocation. */
const HELLO = `console.log("hello");\n`;
/** A Bun.serve answering 200 on every path, on the port given as argv[2]; prints one line once listening. */
const SERVE_HELLO = `const server = Bun.serve({ hostname: "127.0.0.1", port: Number(process.argv[2] ?? 0), fetch: () => new Response("ok") });
console.log("listening on " + server.port);\n`;

export interface Floors {
  hello: string;
  serveHello: string;
}

/**
 * A copy of `binary` in `dir` as `name`, written now in one pass. When and how an executable's file was written changes
 * how fast it starts on these VMs: the same dist/prx started 8-9 ms sooner (x0.85-0.88 pair by pair, three rounds of
 * 15 alternated pairs, load 0.5-1.3) as a `cp` or `cat` copy than as the file build.ts had written an hour before,
 * and as fast again once copied over itself. Every binary of a start-up alternation is copied right before it, so
 * neither side wins by its file.
 */
export function freshCopy(binary: string, dir: string, name: string): string {
  const copy = join(dir, name);
  copyFileSync(binary, copy);
  chmodSync(copy, 0o755);
  return copy;
}

async function compile(tmp: string, name: string, source: string): Promise<string> {
  const entry = join(tmp, `${name}.ts`);
  const outfile = join(tmp, `${name}.built`);
  writeFileSync(entry, source);
  const build = Bun.spawn(
    [process.execPath, "build", "--compile", "--bytecode", "--format=esm", "--minify", entry, "--outfile", outfile],
    { stdout: "ignore", stderr: "pipe" },
  );
  if ((await build.exited) !== 0) throw new Error(`compiling the ${name} floor failed: ${await new Response(build.stderr).text()}`);
  return freshCopy(outfile, tmp, name);
}

export async function buildFloors(tmp: string): Promise<Floors> {
  return { hello: await compile(tmp, "hello", HELLO), serveHello: await compile(tmp, "serve-hello", SERVE_HELLO) };
}

export interface Paired {
  /** Medians of each side, and the median of the per-pair ratios a/b. */
  a: number;
  b: number;
  ratio: number;
}

/**
 * Runs `a` and `b` in turn `pairs` times after `warmup` unmeasured pairs; each returns one sample. The ratio is taken
 * pair by pair, so a drift in the machine's speed during the run moves both sides of a pair alike.
 */
export async function alternate(
  pairs: number,
  a: () => Promise<number>,
  b: () => Promise<number>,
  warmup = 2,
): Promise<Paired> {
  for (let i = 0; i < warmup; i++) {
    await a();
    await b();
  }
  const as: number[] = [];
  const bs: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < pairs; i++) {
    const x = await a();
    const y = await b();
    as.push(x);
    bs.push(y);
    ratios.push(x / y);
  }
  return { a: stats(as).p50, b: stats(bs).p50, ratio: stats(ratios).p50 };
}
