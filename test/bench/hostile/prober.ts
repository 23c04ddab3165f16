/** A client asking the gateway's /health every 20 ms, as a load balancer would, recording each answer's latency. */
import { percentile } from "../types.ts";

export const PROBE_EVERY_MS = 20;

export class HealthProber {
  private readonly samples: number[] = [];
  private failures = 0;
  private running = true;
  private readonly loop: Promise<void>;

  constructor(private readonly url: string) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const t0 = performance.now();
      try {
        const response = await fetch(`${this.url}/health`, { signal: AbortSignal.timeout(10_000) });
        await response.arrayBuffer();
        if (response.status !== 200) this.failures += 1;
      } catch {
        // a refused or timed-out probe is what this measures: counted, and its latency kept
        this.failures += 1;
      }
      this.samples.push(performance.now() - t0);
      await Bun.sleep(PROBE_EVERY_MS);
    }
  }

  /** Stop probing; the latencies seen, p99 and max, and how many probes failed. */
  async stop(): Promise<{ p99: number; max: number; count: number; failures: number }> {
    this.running = false;
    await this.loop;
    const sorted = [...this.samples].sort((a, b) => a - b);
    return { p99: percentile(sorted, 99), max: sorted.at(-1) ?? NaN, count: sorted.length, failures: this.failures };
  }
}
