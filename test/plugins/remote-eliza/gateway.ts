import { BINARY, runPrx } from "../../helpers/binary.ts";
import { waitFor } from "../../helpers/wait.ts";

export interface RunningGateway {
  url: string;
  token: string;
  stop(): Promise<void>;
}

/**
 * `prx gateway --port 0` of the compiled binary on a workspace, with a token, once every plugin it loads is active
 * (the plugins start after the gateway listens; a remote plugin's routes exist once it has announced them); stop()
 * ends it.
 */
export async function startGateway(workspace: string): Promise<RunningGateway> {
  const created = await runPrx(["gateway", "token", "create", "-w", workspace], { env: { PRX_LOG: "error" } });
  if (created.code !== 0) throw new Error(`token create failed: ${created.stderr}`);
  const proc = Bun.spawn([BINARY, "gateway", "--port", "0", "-w", workspace], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: workspace, PRX_LOG: "error" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const stop = async () => {
    proc.kill("SIGTERM");
    await proc.exited;
  };
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  let text = "";
  while (!/listening on (\S+)/.test(text)) {
    const { done, value } = await reader.read();
    if (done) {
      await stop();
      throw new Error(`gateway exited: ${await new Response(proc.stderr as ReadableStream).text()}`);
    }
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const url = /listening on (\S+)/.exec(text)![1]!;
  const token = created.stdout.trim();
  await waitFor(async () => {
    const response = await fetch(`${url}/api/plugins`, { headers: { authorization: `Bearer ${token}` } });
    if (response.status !== 200) return false;
    const { plugins } = (await response.json()) as { plugins: { status: string }[] };
    return plugins.length > 0 && plugins.every((plugin) => plugin.status === "active");
  }, "the gateway's plugins to be active", 60_000);
  return { url, token, stop };
}
