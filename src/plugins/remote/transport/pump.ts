import { REMOTE_READ_SLICE_MS } from "../limits.ts";

/** Consumes `chunk` from `from`; returns where it stopped (the chunk's length, or earlier once `until` has passed). */
export type ChunkConsumer = (chunk: Uint8Array, from: number, until: number) => number;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Feed a plugin's pipe to `consume` without holding the event loop: after `sliceMs` of continuous work on this
 * stream the pump lets the loop run (timers, HTTP) and goes on where it stopped. A chunk that arrives after a wait
 * starts a fresh slice; chunks that were already buffered keep counting against the current one. Not reading
 * meanwhile is the backpressure: the plugin blocks on its full pipe.
 */
export async function pumpStream(
  stream: ReadableStream<Uint8Array>,
  consume: ChunkConsumer,
  sliceMs = REMOTE_READ_SLICE_MS,
): Promise<void> {
  let busySince = 0;
  let lastEnd = Number.NEGATIVE_INFINITY;
  for await (const chunk of stream) {
    const arrived = performance.now();
    if (arrived - lastEnd > sliceMs) busySince = arrived;
    for (let at = 0; ; ) {
      at = consume(chunk, at, busySince + sliceMs);
      if (at >= chunk.length) break;
      await yieldToLoop();
      busySince = performance.now();
    }
    lastEnd = performance.now();
    if (lastEnd - busySince >= sliceMs) {
      await yieldToLoop();
      busySince = lastEnd = performance.now();
    }
  }
}
