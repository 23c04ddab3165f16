/**
 * The narrow publishing interface the agent loop needs. The plugin runtime's EventBus implements it;
 * the agent never depends on the bus itself.
 */
export interface EventPublisher {
  /** Never waits for consumers. */
  publish(topic: string, payload: unknown): void;
  /**
   * False when nobody receives `topic` now, so a publisher may skip building the payload. Optional: without it,
   * assume someone does.
   */
  wants?(topic: string): boolean;
}

export const nullPublisher: EventPublisher = { publish() {}, wants: () => false };
