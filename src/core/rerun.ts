/**
 * A run that a notice asks for again: `request()` starts `run` unless one is in progress; a request during a run
 * asks for one more after it (a run in progress may have read what the notice tells of before it was written), so
 * any number of requests during one run cost one more run, and the last request is always followed by a whole run.
 * The promise `request()` returns settles when no run is left to do. `run` handles its own errors.
 */
export function rerunOnRequest(run: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null;
  let again = false;
  const loop = async (): Promise<void> => {
    try {
      do {
        again = false;
        await run();
      } while (again);
    } finally {
      running = null;
    }
  };
  return () => {
    if (running) {
      again = true;
      return running;
    }
    return (running = loop());
  };
}
