import { LIBC_NAMES } from "../core/supervise/prctl.ts";

/** inotify(7) flags and event bits used here (<sys/inotify.h>). */
const IN_NONBLOCK = 0o4000;
const IN_CLOEXEC = 0o2000000;
const IN_MODIFY = 0x2;
const IN_ATTRIB = 0x4;
const IN_CLOSE_WRITE = 0x8;
const IN_MOVED_FROM = 0x40;
const IN_MOVED_TO = 0x80;
const IN_CREATE = 0x100;
const IN_DELETE = 0x200;
const IN_DELETE_SELF = 0x400;
const IN_MOVE_SELF = 0x800;
const IN_Q_OVERFLOW = 0x4000;
const IN_IGNORED = 0x8000;
const IN_ONLYDIR = 0x1000000;
/** Everything that can change a file in the directory, or the directory itself. */
const WATCH_MASK =
  IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;
/** struct inotify_event: wd, mask, cookie, len, then len bytes of name. */
const EVENT_HEADER_BYTES = 16;
const READ_BUFFER_BYTES = 64 * 1024;

interface Libc {
  init(): number;
  addWatch(fd: number, path: string): number;
  read(fd: number, buffer: Uint8Array): number;
  close(fd: number): void;
}

let libc: Promise<Libc | null> | undefined;

const decoder = new TextDecoder();

/** An event's name: NUL-padded bytes. */
function nameOf(bytes: Uint8Array): string {
  const end = bytes.indexOf(0);
  return decoder.decode(end < 0 ? bytes : bytes.subarray(0, end));
}

async function loadLibc(): Promise<Libc | null> {
  if (process.platform !== "linux") return null;
  const { dlopen, FFIType } = await import("bun:ffi");
  for (const name of LIBC_NAMES) {
    try {
      const { symbols } = dlopen(name, {
        inotify_init1: { args: [FFIType.i32], returns: FFIType.i32 },
        inotify_add_watch: { args: [FFIType.i32, FFIType.cstring, FFIType.u32], returns: FFIType.i32 },
        read: { args: [FFIType.i32, FFIType.ptr, FFIType.u64], returns: FFIType.i64 },
        close: { args: [FFIType.i32], returns: FFIType.i32 },
      });
      return {
        init: () => symbols.inotify_init1(IN_NONBLOCK | IN_CLOEXEC),
        addWatch: (fd, path) => symbols.inotify_add_watch(fd, Buffer.from(`${path}\0`), WATCH_MASK),
        read: (fd, buffer) => Number(symbols.read(fd, buffer, buffer.byteLength)),
        close: (fd) => void symbols.close(fd),
      };
    } catch {
      // this libc name does not exist here; try the next one
    }
  }
  return null;
}

/**
 * Which plugin directories may have changed since they were last checked, from the kernel (inotify, Linux), read
 * synchronously and without blocking at the start of each discovery: every change made before the discovery began
 * is in the queue by then, so none is missed, and nothing runs between discoveries (no thread, no timer, no
 * event-loop callback; an idle runtime holds one file descriptor and a watch per plugin directory).
 *
 * A directory is `quiet` from the discovery that checked its files under a watch until any event in it: a write,
 * a truncate, a times or mode change, a file created, removed or renamed, the directory itself moved or removed.
 * A queue overflow, a watch that cannot be added, or no inotify at all make every directory unquiet, so discovery
 * falls back to checking the files' stamps. Changes inotify does not report (a write through a hard link living
 * in another directory, a write on another machine to a network file system) are not seen here; a full reload
 * reads every plugin again.
 */
export class PluginDirWatch {
  private readonly byPath = new Map<string, number>();
  private readonly paths = new Map<number, Set<string>>();
  /** Watches with no event since their directory was last checked. */
  private readonly quietWds = new Set<number>();
  /** Directories with an event since the last takeChanged() (kept by path: a watch may be forgotten meanwhile). */
  private readonly changed = new Set<string>();
  private readonly buffer = new Uint8Array(READ_BUFFER_BYTES);
  private closed = false;

  private constructor(
    private readonly fd: number,
    private readonly libc: Libc,
  ) {}

  /** A watch, or null where inotify is not available (then discovery checks stamps, as without one). */
  static async open(): Promise<PluginDirWatch | null> {
    const found = await (libc ??= loadLibc().catch(() => null));
    if (!found) return null;
    const fd = found.init();
    return fd < 0 ? null : new PluginDirWatch(fd, found);
  }

  /** Read every event queued since the last drain; call it before asking `quiet` in a discovery. */
  drain(): void {
    if (this.closed) return;
    for (;;) {
      const n = this.libc.read(this.fd, this.buffer);
      if (n <= 0) return;
      const view = new DataView(this.buffer.buffer, this.buffer.byteOffset, n);
      for (let at = 0; at + EVENT_HEADER_BYTES <= n; ) {
        const wd = view.getInt32(at, true);
        const mask = view.getUint32(at + 4, true);
        const nameBytes = view.getUint32(at + 12, true);
        const name = nameBytes > 0 ? nameOf(this.buffer.subarray(at + EVENT_HEADER_BYTES, at + EVENT_HEADER_BYTES + nameBytes)) : "";
        at += EVENT_HEADER_BYTES + nameBytes;
        for (const path of this.paths.get(wd) ?? []) this.changed.add(path);
        if (mask & IN_Q_OVERFLOW) this.quietWds.clear();
        else if (mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)) this.forget(wd);
        else this.quietWds.delete(wd);
        // an entry of a watched directory that is itself watched (a plugin directory in plugins/) was replaced
        if (name !== "") for (const path of this.paths.get(wd) ?? []) this.unwatch(`${path}/${name}`);
      }
    }
  }

  /** The watched directories with an event since the last call (drain first): what a discovery has to look at again. */
  takeChanged(): string[] {
    const changed = [...this.changed];
    this.changed.clear();
    return changed;
  }

  /** True while nothing happened in `dir` since `checked(dir)` (drain first). */
  quiet(dir: string): boolean {
    const wd = this.byPath.get(dir);
    return wd !== undefined && this.quietWds.has(wd);
  }

  /**
   * Watch `dir` before its files are checked (a change during the check is then an event for the next drain). False
   * when it cannot be watched (the per-user limit reached, say): it is never quiet.
   */
  watch(dir: string): boolean {
    if (this.closed) return false;
    if (this.byPath.has(dir)) return true;
    const wd = this.libc.addWatch(this.fd, dir);
    if (wd < 0) return false;
    this.byPath.set(dir, wd);
    let paths = this.paths.get(wd);
    if (!paths) this.paths.set(wd, (paths = new Set()));
    paths.add(dir);
    return true;
  }

  /** `dir`'s files were checked under its watch: quiet until its next event. */
  checked(dir: string): void {
    const wd = this.byPath.get(dir);
    if (wd !== undefined) this.quietWds.add(wd);
  }

  /** A directory discovery no longer lists (or lists as something else): its next check starts afresh. */
  unwatch(dir: string): void {
    const wd = this.byPath.get(dir);
    if (wd === undefined) return;
    this.byPath.delete(dir);
    this.quietWds.delete(wd);
    this.paths.get(wd)?.delete(dir);
  }

  /** Directories watched now. */
  get size(): number {
    return this.byPath.size;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.quietWds.clear();
    this.libc.close(this.fd);
  }

  private forget(wd: number): void {
    this.quietWds.delete(wd);
    for (const path of this.paths.get(wd) ?? []) this.byPath.delete(path);
    this.paths.delete(wd);
  }
}
