import { PrxError } from "../../../core/errors.ts";

/**
 * Reading and writing the WebAssembly binary format's primitives: bytes and LEB128 integers. Every malformed input
 * fails with PLUGIN_LOAD naming the module (`where`) and the byte offset, never with a RangeError.
 */
export class ByteReader {
  pos: number;

  constructor(
    readonly bytes: Uint8Array,
    readonly where: string,
    start = 0,
    /** Reads stop here (a section's or a body's end). */
    readonly end = bytes.length,
  ) {
    this.pos = start;
  }

  fail(message: string, at = this.pos): never {
    throw new PrxError("PLUGIN_LOAD", `${this.where}: ${message} at byte offset 0x${at.toString(16)}`, {
      hint: "the module is malformed or uses a WebAssembly feature prx cannot instrument; rebuild it with a standard toolchain",
    });
  }

  atEnd(): boolean {
    return this.pos >= this.end;
  }

  u8(): number {
    if (this.pos >= this.end) this.fail("unexpected end of data");
    return this.bytes[this.pos++]!;
  }

  /** An unsigned LEB128 of at most 32 bits. */
  u32(): number {
    const bytes = this.bytes;
    if (this.pos < this.end && bytes[this.pos]! < 0x80) return bytes[this.pos++]!;
    let result = 0;
    let shift = 0;
    for (;;) {
      if (this.pos >= this.end) this.fail("truncated LEB128");
      const b = bytes[this.pos++]!;
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) break;
      shift += 7;
      if (shift > 28) this.fail("LEB128 longer than 5 bytes");
    }
    if (result > 0xffffffff) this.fail("LEB128 out of u32 range");
    return result;
  }

  /** Skip any LEB128 (signed or unsigned) of at most `maxBytes` bytes. */
  skipLeb(maxBytes = 10): void {
    const bytes = this.bytes;
    if (this.pos < this.end && bytes[this.pos]! < 0x80) {
      this.pos++;
      return;
    }
    const start = this.pos;
    for (;;) {
      if (this.pos >= this.end) this.fail("truncated LEB128");
      if ((bytes[this.pos++]! & 0x80) === 0) return;
      if (this.pos - start >= maxBytes) this.fail(`LEB128 longer than ${maxBytes} bytes`);
    }
  }

  /** A signed LEB128 of at most 33 bits (block types, heap types); returned as a number. */
  s33(): number {
    const bytes = this.bytes;
    let result = 0;
    let shift = 0;
    let b: number;
    do {
      if (this.pos >= this.end) this.fail("truncated LEB128");
      if (shift === 35) this.fail("LEB128 longer than 5 bytes");
      b = bytes[this.pos++]!;
      result += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    return b & 0x40 ? result - 2 ** shift : result;
  }

  skip(n: number): void {
    if (n < 0 || this.pos + n > this.end) this.fail(`${n} bytes run past the end`);
    this.pos += n;
  }

  /** Skip a length-prefixed name. */
  skipName(): void {
    this.skip(this.u32());
  }

  /** A length-prefixed name (UTF-8). */
  name(): string {
    const len = this.u32();
    const start = this.pos;
    this.skip(len);
    return new TextDecoder().decode(this.bytes.subarray(start, start + len));
  }
}

/** A growable output buffer. */
export class ByteWriter {
  private buf: Uint8Array;
  length = 0;

  constructor(capacity = 1024) {
    this.buf = new Uint8Array(Math.max(16, capacity));
  }

  private reserve(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  u8(b: number): void {
    this.reserve(1);
    this.buf[this.length++] = b;
  }

  u32(value: number): void {
    this.reserve(5);
    let v = value >>> 0;
    do {
      let b = v & 0x7f;
      v >>>= 7;
      if (v !== 0) b |= 0x80;
      this.buf[this.length++] = b;
    } while (v !== 0);
  }

  /** A signed LEB128 of a 32-bit integer (also a valid i64.const immediate). */
  s32(value: number): void {
    this.reserve(5);
    let v = value | 0;
    for (;;) {
      const b = v & 0x7f;
      v >>= 7;
      const done = (v === 0 && (b & 0x40) === 0) || (v === -1 && (b & 0x40) !== 0);
      this.buf[this.length++] = done ? b : b | 0x80;
      if (done) return;
    }
  }

  bytes(data: Uint8Array): void {
    this.reserve(data.length);
    this.buf.set(data, this.length);
    this.length += data.length;
  }

  name(text: string): void {
    const data = new TextEncoder().encode(text);
    this.u32(data.length);
    this.bytes(data);
  }

  /** The bytes written so far (a view; copy it before writing more if you keep it). */
  view(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}
