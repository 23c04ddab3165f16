/**
 * The narrow publishing interface the agent loop needs. The plugin runtime's EventBus implements it;
 * the agent never depends on the bus itself.
 */
export interface EventPublisher {
  /** Never waits for consumers. */
  publish(topic: string, payload: unknown): void;
}

export const nullPublisher: EventPublisher = { publish() {} };
