import type { ToolResult } from "./types.ts";

export const TRUNCATION_MARKER = "\n[... truncated: output exceeded the limit of {limit} bytes ...]";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function ok(output: string): ToolResult {
  return { success: true, output, error: null };
}

export function fail(error: string, output = ""): ToolResult {
  return { success: false, output, error };
}

/**
 * Cut text to at most `maxBytes` UTF-8 bytes including the marker, never splitting a character.
 * Returns the text unchanged when it fits.
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  // a JS string never takes more than 3 UTF-8 bytes per UTF-16 unit, so short strings skip encoding
  if (text.length * 3 <= maxBytes) return text;
  const bytes = encoder.encode(text);
  if (bytes.byteLength <= maxBytes) return text;
  const marker = TRUNCATION_MARKER.replace("{limit}", String(maxBytes));
  let end = Math.max(0, maxBytes - encoder.encode(marker).byteLength);
  // step back over UTF-8 continuation bytes (10xxxxxx) so the cut lands on a character boundary
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return decoder.decode(bytes.subarray(0, end)) + marker;
}

/** Apply the output cap to both the output and the error text of a result. */
export function capResult(result: ToolResult, maxBytes: number): ToolResult {
  const output = truncateUtf8(result.output, maxBytes);
  const error = result.error == null ? null : truncateUtf8(result.error, maxBytes);
  if (output === result.output && error === (result.error ?? null)) return result;
  return { success: result.success, output, error };
}
