import type { StreamDelta } from "./types.ts";

/**
 * Hands a streamed answer's deltas on, the text pieces of one read of the provider's stream joined into one text
 * delta: text that arrived at once reaches the client at once, and everything after the provider (observers, the
 * client's SSE chunk, a channel's message edit) runs once for it instead of once a piece. Order is kept: any other
 * delta hands on the text before it first. `flush` ends a read.
 */
export class DeltaJoiner {
  private pending = "";

  constructor(private readonly onDelta: (delta: StreamDelta) => void) {}

  text(piece: string): void {
    this.pending += piece;
  }

  other(delta: Exclude<StreamDelta, { type: "text" }>): void {
    this.flush();
    this.onDelta(delta);
  }

  flush(): void {
    if (this.pending === "") return;
    const text = this.pending;
    this.pending = "";
    this.onDelta({ type: "text", text });
  }
}
