import { EXECUTION_TIME_SAMPLES } from "../limits.ts";

/**
 * How long a sandbox's guest ran inside its Worker, over its last EXECUTION_TIME_SAMPLES successful calls: what a
 * call costs beyond the runtime's own hop. A Worker woken from idle runs its guest slower than a hot loop on the
 * calling thread would, so this, not an in-thread call, is the component's share.
 */
export class ExecutionTimes {
  private readonly samples = new Float64Array(EXECUTION_TIME_SAMPLES);
  private count = 0;

  add(us: number): void {
    this.samples[this.count++ % EXECUTION_TIME_SAMPLES] = us;
  }

  /** The median (us), null before the first sample. */
  p50(): number | null {
    const n = this.size();
    if (n === 0) return null;
    return this.samples.slice(0, n).sort()[n >> 1]!;
  }

  /** The latest sample (us), null before the first. */
  last(): number | null {
    return this.count === 0 ? null : this.samples[(this.count - 1) % EXECUTION_TIME_SAMPLES]!;
  }

  /** How many samples p50() looks at (at most EXECUTION_TIME_SAMPLES). */
  size(): number {
    return Math.min(this.count, EXECUTION_TIME_SAMPLES);
  }
}
