import type { BigIntStats } from "node:fs";
import { PluginDirWatch } from "./dir-watch.ts";
import type { DiscoveredOk, DiscoveredPlugin } from "./discovered.ts";
import type { ParsedManifest } from "./manifest.ts";

/** What identifies one version of a file: a write changes its size, mtime or ctime; a replacement its inode. */
export function fileStamp(info: BigIntStats): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}

interface Entry<T> {
  stamp: string;
  value: T;
  /** The discovery that last read it. */
  round: number;
}

/**
 * Values read from files, kept while the file's stamp is unchanged; holds only what the last discovery read. One
 * map: an entry is marked with the discovery that read it, and a sweep walks the map only when an entry was not
 * read (a plugin removed or refused), so an unchanged directory costs a discovery no copying.
 */
class StampedFiles<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private round = 1;
  private readThisRound = 0;

  private mark(hit: Entry<T>): void {
    if (hit.round === this.round) return;
    hit.round = this.round;
    this.readThisRound++;
  }

  get(path: string, stamp: string): T | undefined {
    const hit = this.entries.get(path);
    if (hit?.stamp !== stamp) return undefined;
    this.mark(hit);
    return hit.value;
  }

  /** The stamp this discovery read `path` with, if it read it. */
  stampOf(path: string): string | undefined {
    const hit = this.entries.get(path);
    return hit?.round === this.round ? hit.stamp : undefined;
  }

  /** The value kept for `path` whatever its stamp (the caller knows the file is unchanged). */
  keep(path: string): T | undefined {
    const hit = this.entries.get(path);
    if (hit) this.mark(hit);
    return hit?.value;
  }

  set(path: string, stamp: string, value: T): void {
    const before = this.entries.get(path);
    if (before?.round === this.round) this.readThisRound--;
    const entry: Entry<T> = { stamp, value, round: 0 };
    this.entries.set(path, entry);
    this.mark(entry);
  }

  sweep(): void {
    if (this.readThisRound !== this.entries.size) {
      for (const [path, entry] of this.entries) if (entry.round !== this.round) this.entries.delete(path);
    }
    this.round++;
    this.readThisRound = 0;
  }

  get size(): number {
    return this.entries.size;
  }
}

/** A plugin as discovery found it, with its entry file's stamp; `flat`: that file is directly in the plugin directory. */
export interface KnownPlugin {
  found: DiscoveredOk;
  entryStamp: string;
  flat: boolean;
}

/** One plugin directory of a listing: where it is and where its plugin sits in the listing's result. */
export interface ListedDir {
  at: number;
  path: string;
  name: string;
}

/**
 * The last full listing of plugins/ while plugins/ itself was watched: its result, and each plugin directory in it by
 * canonical path. While plugins/ stays quiet (no entry added, removed or renamed) the next discovery starts from it
 * and looks only at the directories with an event and the `loud` ones (never quiet: their entry file is in a
 * subdirectory, or they were refused), so a discovery costs what changed, not what is installed.
 */
export interface Listing {
  pluginsDir: string;
  root: string;
  found: DiscoveredPlugin[];
  dirs: Map<string, ListedDir>;
  loud: Set<string>;
}

/**
 * What discovery read from plugin files, per runtime: parsed manifests and entry-file headers, reused while the file
 * is unchanged (fileStamp of an lstat: still a regular file, same identity, size and times). A build then parses
 * only the manifests written since the previous one, and an unchanged plugin costs a few lstat calls: a reload of
 * one plugin among many does not parse and open every other plugin's files again. Every check discovery makes on
 * a file it reads (regular file, no symlink, size limits, UTF-8) is made whenever it is read.
 */
export class DiscoveryCache {
  readonly manifests = new StampedFiles<ParsedManifest>();
  readonly headers = new StampedFiles<Uint8Array>();
  /**
   * Each admitted plugin directory as discovery found it, by its manifest's path, with the stamps of its manifest
   * and entry file: while both are unchanged the same object is handed out again (what a build carries over by).
   */
  readonly plugins = new StampedFiles<KnownPlugin>();

  /**
   * Where the kernel can say which plugin directories changed (dir-watch.ts), an unchanged plugin is handed out
   * without even an lstat: then a reload of one plugin does not touch the others' files at all.
   */
  watch: PluginDirWatch | null = null;
  /** Kept only while `watch` is open. */
  listing: Listing | null = null;
  /** The last discovery that started from the listing and found something changed: the positions it replaced. */
  private delta: { from: readonly DiscoveredPlugin[]; to: readonly DiscoveredPlugin[]; at: readonly number[] } | null = null;

  /** Record that `to` is `from` with the plugins at `at` inspected again (discovery.ts). */
  derived(from: readonly DiscoveredPlugin[], to: readonly DiscoveredPlugin[], at: readonly number[]): void {
    this.delta = { from, to, at };
  }

  /**
   * The positions where `to` differs from `from` when this cache knows (the same array: none; the last discovery's
   * result derived from `from`: the plugins it inspected again). Undefined: it does not know, compare them all.
   */
  changes(from: readonly DiscoveredPlugin[], to: readonly DiscoveredPlugin[]): readonly number[] | undefined {
    if (from === to) return [];
    return this.delta?.from === from && this.delta.to === to ? this.delta.at : undefined;
  }
  private watching: Promise<void> | null = null;

  /** Open the directory watch (once; a no-op where there is none). */
  startWatching(): Promise<void> {
    this.watching ??= PluginDirWatch.open().then((watch) => {
      this.watch = watch;
    });
    return this.watching;
  }

  /** Close the watch (the runtime stopped); later discoveries check stamps. */
  close(): void {
    this.watch?.close();
    this.watch = null;
    this.listing = null;
    this.delta = null;
  }

  /** End of a discovery: forget the files it did not read (plugins removed or refused). */
  sweep(): void {
    this.manifests.sweep();
    this.headers.sweep();
    this.plugins.sweep();
  }
}
