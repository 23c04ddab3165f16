/** Callers waiting for the plugin to become ready (again). */
export class ReadyGate {
  private waiters: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];

  wait(timeoutMs: number, onTimeout: () => Error): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve: () => (clearTimeout(timer), resolve()),
        reject: (e: Error) => (clearTimeout(timer), reject(e)),
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(onTimeout());
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  open(): void {
    for (const w of this.waiters.splice(0)) w.resolve();
  }

  fail(error: Error): void {
    for (const w of this.waiters.splice(0)) w.reject(error);
  }
}
