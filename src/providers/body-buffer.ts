/** The largest request body written into a provider's reused buffer; a larger one gets a buffer of its own. */
export const BODY_BUFFER_MAX_BYTES = 2 * 1024 * 1024;

const UTF8 = new TextEncoder();

/**
 * A provider's buffer for the bodies of requests that carry image data: the body's parts (JSON text, base64 data)
 * are encoded into it, and fetch copies the bytes as it makes the request (the Fetch standard extracts a copy of a
 * byte source's bytes). Made as a string instead, a body of hundreds of kilobytes is a fresh allocation on every
 * image turn, whose pages the kernel hands over one fault at a time, and fetch encodes it into a second one.
 * Lent to one request at a time, until its fetch has settled; a request that finds it lent, or a body over
 * BODY_BUFFER_MAX_BYTES, gets a buffer of its own.
 */
export class BodyBuffer {
  private buffer: Uint8Array | null = null;
  private lent = false;

  /** The UTF-8 bytes of `parts` one after the other, and what gives the buffer back once the request's fetch settled. */
  write(parts: readonly string[]): { bytes: Uint8Array; release: () => void } {
    let size = 0;
    for (const part of parts) size += Buffer.byteLength(part, "utf8");
    const reuse = !this.lent && size <= BODY_BUFFER_MAX_BYTES;
    let target: Uint8Array;
    if (reuse) {
      if (!this.buffer || this.buffer.length < size) this.buffer = new Uint8Array(size);
      target = this.buffer;
      this.lent = true;
    } else target = new Uint8Array(size);
    let at = 0;
    for (const part of parts) at += UTF8.encodeInto(part, target.subarray(at)).written;
    return { bytes: target.subarray(0, size), release: reuse ? () => void (this.lent = false) : () => {} };
  }
}
