/**
 * A real process on a pseudo-terminal (util-linux `script`): what a user at a terminal sees, escape codes included.
 * Keys go in with `type`; `waitFor` polls the output (no wall-clock assertions: it waits for what must appear).
 */
export interface PtyProcess {
  type(keys: string): void;
  /** Everything the terminal showed so far. */
  output(): string;
  /** Resolves once `pattern` shows up; rejects with the output after `timeoutMs` (a safety net, not an assertion). */
  waitFor(pattern: string | RegExp, timeoutMs?: number): Promise<void>;
  exited: Promise<number>;
  kill(): void;
}

/** Quote one argument for the shell `script -c` runs. */
function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}

export function spawnPty(argv: string[], env: Record<string, string>, columns = 120): PtyProcess {
  const command = `stty cols ${columns} rows 40; exec ${argv.map(quote).join(" ")}`;
  const proc = Bun.spawn(["script", "-qfec", command, "/dev/null"], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    env,
  });
  let seen = "";
  const decoder = new TextDecoder();
  const reading = (async () => {
    for await (const chunk of proc.stdout) seen += decoder.decode(chunk, { stream: true });
  })();
  return {
    type(keys) {
      proc.stdin.write(keys);
      proc.stdin.flush();
    },
    output: () => seen,
    async waitFor(pattern, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      const found = () => (typeof pattern === "string" ? seen.includes(pattern) : pattern.test(seen));
      while (!found()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(pattern)}; the terminal shows:\n${seen}`);
        await Bun.sleep(10);
      }
    },
    exited: proc.exited.then(async (code) => {
      await reading;
      return code;
    }),
    kill: () => proc.kill(),
  };
}
