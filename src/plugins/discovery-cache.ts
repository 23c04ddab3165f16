import type { BigIntStats } from "node:fs";
import type { DiscoveredOk } from "./discovery.ts";
import type { ParsedManifest } from "./manifest.ts";

/** What identifies one version of a file: a write changes its size, mtime or ctime; a replacement its inode. */
export function fileStamp(info: BigIntStats): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}

interface Entry<T> {
  stamp: string;
  value: T;
}

/** Values read from files, kept while the file's stamp is unchanged; holds only what the last discovery read. */
class StampedFiles<T> {
  private known = new Map<string, Entry<T>>();
  private read = new Map<string, Entry<T>>();

  get(path: string, stamp: string): T | undefined {
    const hit = this.read.get(path) ?? this.known.get(path);
    if (hit?.stamp !== stamp) return undefined;
    this.read.set(path, hit);
    return hit.value;
  }

  /** The stamp this discovery read `path` with, if it read it. */
  stampOf(path: string): string | undefined {
    return this.read.get(path)?.stamp;
  }

  set(path: string, stamp: string, value: T): void {
    this.read.set(path, { stamp, value });
  }

  sweep(): void {
    this.known = this.read;
    this.read = new Map();
  }

  get size(): number {
    return this.known.size;
  }
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
  readonly plugins = new StampedFiles<{ found: DiscoveredOk; entryStamp: string }>();

  /** End of a discovery: forget the files it did not read (plugins removed or refused). */
  sweep(): void {
    this.manifests.sweep();
    this.headers.sweep();
    this.plugins.sweep();
  }
}
