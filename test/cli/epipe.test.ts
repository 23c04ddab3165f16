/** `prx agent ... | head -1`: a reader that goes away closes prx's stdout; prx stops quietly with status 0. */
import { expect, setDefaultTimeout, test } from "bun:test";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

setDefaultTimeout(60_000);

test("a closed stdout (EPIPE) ends prx with status 0 and no stack trace", async () => {
  await ensureBinary();
  const ws = tempWorkspace('default_provider = "off"\n[providers.off]\nkind = "offline"\n');
  try {
    const lines = Array.from({ length: 200 }, (_, i) => `line ${i}`).join("\n") + "\n";
    const proc = Bun.spawn([BINARY, "agent", "-w", ws.dir], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: ws.dir },
      stdin: new Blob([lines]),
      stdout: "pipe",
      stderr: "pipe",
    });
    const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain("line 0");
    await reader.cancel();
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr as ReadableStream).text()]);
    expect(code).toBe(0);
    expect(stderr).not.toContain("EPIPE");
  } finally {
    ws.cleanup();
  }
});
