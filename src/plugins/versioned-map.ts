/** The version that owns the native Map, or a change that leads to a version closer to it. */
type Node<K, V> = { map: Map<K, V> } | { key: K; present: boolean; value: V | undefined; next: VersionedMap<K, V> };

/**
 * A map whose versions all stay readable while deriving one from another costs only its changes (Baker's trick): the
 * version read last owns one native Map, every other version is the chain of changes that leads to it. Reading a
 * version first moves the Map to it (rerooting), which costs the changes between the two versions: a generation of
 * plugins derived from the current one by a reload of one plugin copies nothing per plugin, and reads of the newest
 * version, which serves, cost one native lookup.
 */
export class VersionedMap<K, V> {
  private node: Node<K, V>;

  constructor(entries?: Iterable<readonly [K, V]>) {
    this.node = { map: new Map(entries) };
  }

  /** A new version: this one with `changes` applied (a value of undefined deletes the key). This one is unchanged. */
  with(changes: Iterable<readonly [K, V | undefined]>): VersionedMap<K, V> {
    let version: VersionedMap<K, V> = this;
    for (const [key, value] of changes) {
      const next = Object.create(VersionedMap.prototype) as VersionedMap<K, V>;
      next.node = { key, present: value !== undefined, value, next: version };
      version = next;
    }
    return version;
  }

  get(key: K): V | undefined {
    return this.owned().get(key);
  }

  has(key: K): boolean {
    return this.owned().has(key);
  }

  get size(): number {
    return this.owned().size;
  }

  /** The entries of this version (a snapshot: reading another version meanwhile does not change it). */
  entries(): [K, V][] {
    return [...this.owned()];
  }

  values(): V[] {
    return [...this.owned().values()];
  }

  /** Make this version the one that owns the Map: it then keeps nothing of the versions it was derived from alive. */
  makeCurrent(): void {
    this.owned();
  }

  /** Move the Map to this version: undo, from the owner back to this one, each change on the way. */
  private owned(): Map<K, V> {
    const node = this.node;
    if ("map" in node) return node.map;
    const path: VersionedMap<K, V>[] = [];
    let at: VersionedMap<K, V> = this;
    while (!("map" in at.node)) {
      path.push(at);
      at = at.node.next;
    }
    const map = at.node.map;
    for (let i = path.length - 1; i >= 0; i--) {
      const version = path[i]!;
      const change = version.node as Exclude<Node<K, V>, { map: Map<K, V> }>;
      const owner = change.next;
      const present = map.has(change.key);
      const value = map.get(change.key);
      if (change.present) map.set(change.key, change.value as V);
      else map.delete(change.key);
      owner.node = { key: change.key, present, value, next: version };
      version.node = { map };
    }
    return map;
  }
}
