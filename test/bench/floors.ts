/**
 * Floors for start-up measures: bare programs compiled the way prx is (`--compile --bytecode`, ESM, minified), so a
 * ratio to them says what prx itself adds on this machine, now. Absolute times move 2-3x between machines; a ratio
 * measured in alternation (A B A B ...) does not.
 */
import { writeFileSync } from "node:fs";
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

async function compile(tmp: string, name: string, source: string): Promise<string> {
  const entry = join(tmp, `${name}.ts`);
  const outfile = join(tmp, name);
  writeFileSync(entry, source);
  const build = Bun.spawn(
    [process.execPath, "build", "--compile", "--bytecode", "--format=esm", "--minify", entry, "--outfile", outfile],
    { stdout: "ignore", stderr: "pipe" },
  );
  if ((await build.exited) !== 0) throw new Error(`compiling the ${name} floor failed: ${await new Response(build.stderr).text()}`);
  return outfile;
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
