/**
 * Event nesting across the worker boundary. The bus limits how deep publishes nest (a handler republishing in a loop
 * is refused), but a remote handler's runtime.emitEvent comes back as a host-rpc in another async context, so the
 * depth is lost there. While a plugin handles an event at depth d, its emits are published at depth d: a remote
 * handler re-emitting its own event stops at EVENT_MAX_PUBLISH_DEPTH like an in-process one. Concurrent deliveries
 * count with the deepest one.
 */
export class DeliveryDepths {
  private readonly active = new Map<string, number[]>();

  /** A delivery to `plugin` running at handling depth `depth` starts; call the returned function when it ends. */
  enter(plugin: string, depth: number): () => void {
    const list = this.active.get(plugin) ?? [];
    list.push(depth);
    this.active.set(plugin, list);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      list.splice(list.indexOf(depth), 1);
      if (list.length === 0) this.active.delete(plugin);
    };
  }

  /** The handling depth of the plugin's deepest delivery in progress (0 when none). */
  depthOf(plugin: string): number {
    const list = this.active.get(plugin);
    return list?.length ? Math.max(...list) : 0;
  }
}
