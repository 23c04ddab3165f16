/**
 * Ctrl-C policy shared by chat and the agent CLI: the first interrupt cancels the running turn,
 * a second one within the window (or one while idle) exits.
 */
export const SECOND_INTERRUPT_WINDOW_MS = 2000;

export class InterruptController {
  private controller: AbortController | null = null;
  private lastInterrupt = 0;

  constructor(private readonly onExit: () => void, private readonly notify: (message: string) => void) {}

  /** A fresh signal for the next turn. */
  begin(): AbortSignal {
    this.controller = new AbortController();
    return this.controller.signal;
  }

  end(): void {
    this.controller = null;
  }

  interrupt(): void {
    const now = Date.now();
    if (this.controller && !this.controller.signal.aborted && now - this.lastInterrupt > SECOND_INTERRUPT_WINDOW_MS) {
      this.lastInterrupt = now;
      this.controller.abort();
      this.notify("cancelled (Ctrl-C again to exit)");
      return;
    }
    this.onExit();
  }
}
