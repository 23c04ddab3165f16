/** Reads a stream to its end (or until cancelled), keeping at most `max` bytes. */
export class CappedCapture {
  private readonly chunks: Uint8Array[] = [];
  private kept = 0;
  truncated = false;
  readonly done: Promise<void>;
  private reader: { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> } | null;

  constructor(
    stream: ReadableStream<Uint8Array> | null | undefined,
    private readonly max: number,
  ) {
    this.reader = stream ? stream.getReader() : null;
    this.done = this.pump();
  }

  private async pump(): Promise<void> {
    const reader = this.reader;
    if (!reader) return;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done || !value) return;
        const room = this.max - this.kept;
        if (value.byteLength > room) this.truncated = true;
        if (room > 0) {
          const part = value.byteLength > room ? value.subarray(0, room) : value;
          this.chunks.push(part);
          this.kept += part.byteLength;
        }
      }
    } catch {
      // Cancelled by stop(), or the pipe broke: what was read so far is the capture.
    }
  }

  /** Stop reading (closing our end of the pipe). */
  async stop(): Promise<void> {
    if (!this.reader) return;
    this.truncated = true;
    await this.reader.cancel().catch(() => undefined);
    await this.done;
  }

  text(): string {
    return new TextDecoder().decode(Buffer.concat(this.chunks));
  }
}
