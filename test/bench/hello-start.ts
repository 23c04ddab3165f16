/**
 * The floor of a gateway start on this machine: a `Bun.serve` hello world compiled the way build.ts compiles prx
 * (`--compile --bytecode --minify --format=esm`), started and polled for its first 200 exactly as the gateway is.
 * The gateway's cold start is reported against it (target: within 2x, measured in the same run).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const HELLO_SOURCE = `
const port = Number(process.argv[2]);
Bun.serve({ hostname: "127.0.0.1", port, fetch: () => new Response("hello") });
`;

/** Compiles the hello server into `dir` and returns the binary's path. */
export async function buildHello(dir: string): Promise<string> {
  const source = join(dir, "hello.ts");
  const outfile = join(dir, "hello");
  writeFileSync(source, HELLO_SOURCE);
  const result = await Bun.build({
    entrypoints: [source],
    compile: { outfile },
    bytecode: true,
    minify: true,
    format: "esm",
    target: "bun",
  });
  if (!result.success) throw new Error(`cannot compile the hello server: ${result.logs.join("\n")}`);
  return outfile;
}

/** Milliseconds from spawn to the first 200 on `path`, polling every millisecond (the gateway's own method). */
export async function timeToFirst200(cmd: string[], url: string, env: Record<string, string>): Promise<{ ms: number; proc: ReturnType<typeof Bun.spawn> }> {
  const started = performance.now();
  const proc = Bun.spawn(cmd, { env, stdout: "ignore", stderr: "ignore" });
  const deadline = started + 10_000;
  for (;;) {
    const status = await fetch(url).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return { ms: performance.now() - started, proc };
    if (performance.now() > deadline || proc.exitCode !== null) throw new Error(`${cmd[0]} did not answer 200 (exit ${proc.exitCode})`);
    await Bun.sleep(1);
  }
}
