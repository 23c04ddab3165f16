/**
 * The client's `stop_sequences`, applied to the answer's text as it passes: text is let through once no stop sequence
 * can begin in it, and everything from the first stop sequence on is dropped (Anthropic's API stops generating
 * there; prx cuts the text at the edge, so the answer the client sees is the same).
 */
export class StopScanner {
  private held = "";
  private readonly keep: number;
  /** The stop sequence met, once one is. */
  stopped: string | null = null;

  constructor(private readonly stops: readonly string[]) {
    this.keep = Math.max(0, ...stops.map((stop) => stop.length - 1));
  }

  /** The part of `text` (after what was held back) that is safe to show now. */
  push(text: string): string {
    if (this.stopped !== null) return "";
    const buffer = this.held + text;
    let at = -1;
    for (const stop of this.stops) {
      const found = buffer.indexOf(stop);
      if (found >= 0 && (at < 0 || found < at)) {
        at = found;
        this.stopped = stop;
      }
    }
    if (at >= 0) {
      this.held = "";
      return buffer.slice(0, at);
    }
    const cut = buffer.length - this.pendingLength(buffer);
    this.held = buffer.slice(cut);
    return buffer.slice(0, cut);
  }

  /** Length of the longest end of `buffer` that a stop sequence begins with (it may yet become that stop). */
  private pendingLength(buffer: string): number {
    for (let length = Math.min(this.keep, buffer.length); length > 0; length--) {
      const tail = buffer.slice(buffer.length - length);
      if (this.stops.some((stop) => stop.startsWith(tail))) return length;
    }
    return 0;
  }

  /** What was held back, at the end of the text. */
  flush(): string {
    const rest = this.held;
    this.held = "";
    return rest;
  }
}

/** `text` cut before its first stop sequence, and which one (null when none occurs). */
export function applyStops(text: string, stops: readonly string[] | undefined): { text: string; stopped: string | null } {
  if (!stops?.length) return { text, stopped: null };
  const scanner = new StopScanner(stops);
  const shown = scanner.push(text);
  return scanner.stopped !== null ? { text: shown, stopped: scanner.stopped } : { text: shown + scanner.flush(), stopped: null };
}
