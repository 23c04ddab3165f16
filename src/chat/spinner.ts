import { paint } from "../core/terminal.ts";

/** Frames of the "thinking" line shown on a TTY while a turn waits for its first output. */
export const SPINNER_FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"] as const;
/** How often the frame changes. */
export const SPINNER_INTERVAL_MS = 80;
export const SPINNER_LABEL = "thinking…";
/** Carriage return and "erase the whole line": the spinner leaves nothing behind. */
export const ERASE_LINE = "\r\x1b[2K";

export interface Spinner {
  /** Show the line (no-op when disabled or already showing). */
  start(): void;
  /** Erase the line (no-op when not showing). Call before writing anything else. */
  stop(): void;
  readonly active: boolean;
}

/**
 * The "thinking" line: drawn at the start of an empty line, redrawn in place, erased before the first token. Disabled
 * (never drawn) off a TTY, so plain and piped output never carry it.
 */
export function createSpinner(write: (text: string) => void, enabled: boolean, color: boolean): Spinner {
  let timer: ReturnType<typeof setInterval> | undefined;
  let frame = 0;
  const draw = () => write(`${ERASE_LINE}${paint(color, "2", `${SPINNER_FRAMES[frame++ % SPINNER_FRAMES.length]} ${SPINNER_LABEL}`)}`);
  return {
    start() {
      if (!enabled || timer) return;
      frame = 0;
      draw();
      timer = setInterval(draw, SPINNER_INTERVAL_MS);
    },
    stop() {
      if (!timer) return;
      clearInterval(timer);
      timer = undefined;
      write(ERASE_LINE);
    },
    get active() {
      return timer !== undefined;
    },
  };
}
