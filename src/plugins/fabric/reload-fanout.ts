import { errorMessage } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Logger } from "../../core/logger.ts";
import { RELOAD_FANOUT_TIMEOUT_MS } from "./limits.ts";
import { ReloadReplySchema, ReloadRequestSchema, type ReloadReply } from "./messages.ts";
import type { RedisFabric } from "./redis-fabric.ts";

const CONTROL_CHANNEL = "control";
const replyChannel = (replica: string) => `reply:${replica}`;

/** Reload this replica's runtime (a named plugin, or all) and answer the new generation's number. */
export type LocalReload = (name: string | undefined, options: { force: boolean; all: boolean }) => Promise<number>;

/** One replica's answer, as the reload API lists it. */
export interface ReplicaOutcome {
  replica: string;
  ok: boolean;
  generation: number | null;
  error: string | null;
}

/**
 * Plugin reloads across replicas: a reload through any replica's API is sent to every other live replica, each
 * reloads its own runtime and answers; the asking replica waits for every answer (at most
 * RELOAD_FANOUT_TIMEOUT_MS; a replica that does not answer in time is listed as such).
 */
export class ReplicaReloads {
  private readonly waiting = new Map<string, { replies: Map<string, ReloadReply>; expected: Set<string>; done: () => void }>();

  constructor(
    private readonly fabric: RedisFabric,
    private readonly reload: LocalReload,
    private readonly logger: Logger,
    private readonly timeoutMs = RELOAD_FANOUT_TIMEOUT_MS,
  ) {}

  get replica(): string {
    return this.fabric.replica;
  }

  async open(): Promise<void> {
    await this.fabric.listen(CONTROL_CHANNEL, (message) => void this.onRequest(message));
    await this.fabric.listen(replyChannel(this.fabric.replica), (message) => this.onReply(message));
  }

  /** Ask every other live replica to reload; resolves with their outcomes (in replica order). */
  async reloadOthers(name: string | undefined, options: { force: boolean; all: boolean }): Promise<ReplicaOutcome[]> {
    const expected = new Set(this.fabric.peers.keys());
    if (expected.size === 0) return [];
    const id = newId("reload");
    const replies = new Map<string, ReloadReply>();
    const finished = new Promise<void>((resolve) => this.waiting.set(id, { replies, expected, done: resolve }));
    const request = { kind: "reload", id, from: this.fabric.replica, name: name ?? null, ...options };
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      if (this.fabric.publish(CONTROL_CHANNEL, JSON.stringify(request))) {
        await Promise.race([finished, new Promise<void>((resolve) => (timer = setTimeout(resolve, this.timeoutMs)))]);
      }
    } finally {
      clearTimeout(timer);
      this.waiting.delete(id);
    }
    return [...expected].sort().map(
      (replica) =>
        replies.get(replica) ?? {
          replica,
          ok: false,
          generation: null,
          error: `no answer within ${this.timeoutMs} ms`,
        },
    ).map(({ replica, ok, generation, error }) => ({ replica, ok, generation, error }));
  }

  private async onRequest(message: string): Promise<void> {
    const parsed = ReloadRequestSchema.safeParse(JSON.parse(message));
    if (!parsed.success || parsed.data.from === this.fabric.replica) return;
    const request = parsed.data;
    let reply: ReloadReply;
    try {
      const generation = await this.reload(request.name ?? undefined, { force: request.force, all: request.all });
      reply = { id: request.id, replica: this.fabric.replica, ok: true, generation, error: null };
    } catch (error) {
      reply = { id: request.id, replica: this.fabric.replica, ok: false, generation: null, error: errorMessage(error) };
      this.logger.warn("plugin reload asked by another replica failed here", { from: request.from, error: reply.error });
    }
    this.fabric.publish(replyChannel(request.from), JSON.stringify(reply));
  }

  private onReply(message: string): void {
    const parsed = ReloadReplySchema.safeParse(JSON.parse(message));
    if (!parsed.success) return;
    const pending = this.waiting.get(parsed.data.id);
    if (!pending) return;
    pending.replies.set(parsed.data.replica, parsed.data);
    if ([...pending.expected].every((r) => pending.replies.has(r))) pending.done();
  }
}
