/** Calls `onLine` for each complete line of `stream` as it arrives (a last line without "\n" is not a line yet). */
export async function eachLine(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of stream) {
    buffer += decoder.decode(chunk, { stream: true });
    const parts = buffer.split("\n");
    buffer = parts.pop()!;
    for (const line of parts) onLine(line);
  }
}
