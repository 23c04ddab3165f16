/** Start a helper process that prints its URL on the first line of stdout (bare proxy, standalone fake). */
export async function spawnAnnouncing(
  cmd: string[],
  what: string,
): Promise<{ proc: ReturnType<typeof Bun.spawn>; url: string }> {
  const proc = Bun.spawn(cmd, { stdout: "pipe", stderr: "inherit" });
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`${what} exited before printing its URL`);
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return { proc, url: text.split("\n")[0]!.trim() };
}
