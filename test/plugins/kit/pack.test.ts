/**
 * `prx plugins pack` and `install`: a deterministic .tar.gz named by its content hash, verified file by file before
 * anything is written, admitted by validate's checks, never over an installed plugin without --force; every bound
 * tested at its limit and one past it.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, writeFileSync, ftruncateSync } from "node:fs";
import { join } from "node:path";
import { isPrxError, type ErrorCode } from "../../../src/core/errors.ts";
import { openWorkspace } from "../../../src/core/workspace.ts";
import { PLUGINS_DIR_MAX_ENTRIES } from "../../../src/plugins/discovery.ts";
import { buildPlugin } from "../../../src/plugins/kit/build/build.ts";
import { installPlugin } from "../../../src/plugins/kit/pack/install.ts";
import {
  PACK_MANIFEST_MAX_BYTES,
  PACK_MAX_ARCHIVE_BYTES,
  PACK_MAX_CONTENT_BYTES,
  PACK_MAX_FILES,
  PACK_MAX_PATH_BYTES,
} from "../../../src/plugins/kit/pack/limits.ts";
import { contentHash, PACK_MANIFEST_FILE, sha256Hex } from "../../../src/plugins/kit/pack/manifest.ts";
import { packPlugin } from "../../../src/plugins/kit/pack/pack.ts";
import { packPathProblem } from "../../../src/plugins/kit/pack/paths.ts";
import { readTar, writeTar, type TarFile } from "../../../src/plugins/kit/pack/tar.ts";
import { readPack } from "../../../src/plugins/kit/pack/unpack.ts";
import { scaffoldPlugin } from "../../../src/plugins/kit/scaffold.ts";
import { tempDir } from "./helpers.ts";

setDefaultTimeout(60_000);

const root = tempDir("prx-kit-pack-");
let tool: string;
let packed: string;

beforeAll(async () => {
  tool = scaffoldPlugin("packed-tool", "tool", join(root.dir, "packed-tool")).dir;
  await buildPlugin(tool);
  packed = (await packPlugin(tool, join(root.dir, "packed-tool.tar.gz"))).path;
});
afterAll(() => root.remove());

async function refusal(fn: () => unknown): Promise<{ code: ErrorCode; message: string }> {
  try {
    await fn();
  } catch (error) {
    if (!isPrxError(error)) throw error;
    return { code: error.code, message: error.message };
  }
  throw new Error("not refused");
}

/** A pack made of these entries (prx-pack.json first, as the caller writes it). */
function writePack(name: string, entries: TarFile[]): string {
  const path = join(root.dir, name);
  writeFileSync(path, Bun.gzipSync(writeTar(entries)));
  return path;
}

/** The entries of the test pack, to alter. */
function packEntries(): TarFile[] {
  return readTar(Bun.gunzipSync(readFileSync(packed)), { maxFiles: 10, maxContentBytes: PACK_MAX_CONTENT_BYTES });
}

const workspace = (name: string) => openWorkspace(join(root.dir, name));

describe("pack", () => {
  test("holds prx-pack.json, plugin.toml, the component and the README; named by its content hash", async () => {
    const report = await packPlugin(tool, root.dir);
    expect(report.path).toBe(join(root.dir, `packed-tool-0.1.0-${report.manifest.content_hash.slice(0, 12)}.tar.gz`));
    expect(packEntries().map((e) => e.path)).toEqual([PACK_MANIFEST_FILE, "plugin.toml", "plugin.wasm", "README.md"]);
    const { manifest, files } = readPack(report.path);
    expect(manifest.content_hash).toBe(contentHash(files.map((f) => ({ path: f.path, size: f.data.length, sha256: sha256Hex(f.data) }))));
    // deterministic: the same folder packs to the same bytes
    expect(readFileSync(report.path).equals(readFileSync(packed))).toBe(true);
  });

  test("a remote plugin packs its files, without dot-files", async () => {
    const remote = scaffoldPlugin("packed-remote", "remote", join(root.dir, "packed-remote")).dir;
    writeFileSync(join(remote, ".env"), "SECRET=1");
    const report = await packPlugin(remote, join(root.dir, "remote.tar.gz"));
    expect(report.manifest.files.map((f) => f.path).sort()).toEqual(["README.md", "plugin.test.ts", "plugin.toml", "plugin.ts", "tsconfig.json", "worker.ts"]);
    expect(report.skipped).toEqual([".env", ".prx-kit"]);
  });
});

describe("install", () => {
  test("admits a pack into plugins/<name>, refuses to replace it without force, replaces it with force", async () => {
    const ws = workspace("ws-install");
    const first = await installPlugin(packed, ws);
    expect(first).toMatchObject({ dir: join(ws.pluginsDir, "packed-tool"), replaced: false });
    expect(first.check?.ok).toBe(true);
    expect(readdirSync(join(ws.pluginsDir, "packed-tool")).sort()).toEqual(["README.md", "plugin.toml", "plugin.wasm"]);
    expect(await refusal(() => installPlugin(packed, ws))).toMatchObject({ code: "CONFLICT" });
    expect((await installPlugin(tool, ws, { force: true })).replaced).toBe(true);
    // nothing staged is left behind
    expect(readdirSync(ws.pluginsDir)).toEqual(["packed-tool"]);
  });

  test("a pack whose file does not match its SHA-256 is refused, and nothing is installed", async () => {
    const entries = packEntries();
    const wasm = entries.find((e) => e.path === "plugin.wasm")!;
    wasm.data[wasm.data.length - 1]! ^= 1;
    const ws = workspace("ws-tampered");
    expect((await refusal(() => installPlugin(writePack("tampered.tar.gz", entries), ws))).message).toContain(
      "plugin.wasm does not match its SHA-256 in prx-pack.json: the pack was altered",
    );
    expect(existsSync(join(ws.pluginsDir, "packed-tool"))).toBe(false);
  });

  test("an unlisted file, a missing file, a path out of the folder and a link are refused", async () => {
    const entries = packEntries();
    const extra = writePack("extra.tar.gz", [...entries, { path: "evil.sh", data: new Uint8Array([1]) }]);
    expect((await refusal(() => readPack(extra))).message).toContain("holds evil.sh, which its manifest does not list");
    const missing = writePack("missing.tar.gz", entries.filter((e) => e.path !== "README.md"));
    expect((await refusal(() => readPack(missing))).message).toContain("files its manifest lists are missing");
    const escape = writePack("escape.tar.gz", [...entries, { path: "../outside", data: new Uint8Array([1]) }]);
    expect((await refusal(() => readPack(escape))).message).toContain('"../outside" is a ".." segment');
    const tar = writeTar(entries);
    tar[512 * 0 + 156] = "2".charCodeAt(0); // the first entry as a symlink
    const sum = [...tar.subarray(0, 512)].reduce((a, b, i) => a + (i >= 148 && i < 156 ? 32 : b), 0);
    tar.set(new TextEncoder().encode(sum.toString(8).padStart(6, "0") + "\0 "), 148);
    writeFileSync(join(root.dir, "link.tar.gz"), Bun.gzipSync(tar));
    expect((await refusal(() => readPack(join(root.dir, "link.tar.gz")))).message).toContain("is not a regular file (tar type '2')");
  });

  test(`plugins/ at ${PLUGINS_DIR_MAX_ENTRIES - 1} entries takes one more; at ${PLUGINS_DIR_MAX_ENTRIES}, none`, async () => {
    const ws = workspace("ws-full");
    for (let i = 0; i < PLUGINS_DIR_MAX_ENTRIES - 1; i++) mkdirSync(join(ws.pluginsDir, `p${String(i).padStart(3, "0")}`));
    expect((await installPlugin(packed, ws, { check: false })).replaced).toBe(false);
    expect(readdirSync(ws.pluginsDir)).toHaveLength(PLUGINS_DIR_MAX_ENTRIES);
    // replacing one keeps the count
    expect((await installPlugin(packed, ws, { check: false, force: true })).replaced).toBe(true);
    const other = scaffoldPlugin("other-tool", "tool", join(root.dir, "other-tool")).dir;
    writeFileSync(join(other, "plugin.wasm"), readFileSync(join(tool, "plugin.wasm")));
    expect(await refusal(() => installPlugin(other, ws, { check: false, prebuilt: true }))).toMatchObject({ code: "LIMIT_EXCEEDED" });
  });
});

describe("limits", () => {
  test(`${PACK_MAX_FILES} files pack; one more does not`, async () => {
    const remote = scaffoldPlugin("many-files", "remote", join(root.dir, "many-files")).dir;
    const fill = PACK_MAX_FILES - readdirSync(remote).filter((f) => !f.startsWith(".")).length;
    mkdirSync(join(remote, "data"));
    for (let i = 0; i < fill; i++) writeFileSync(join(remote, "data", `${i}.txt`), "x");
    const report = await packPlugin(remote, join(root.dir, "many.tar.gz"));
    expect(report.manifest.files).toHaveLength(PACK_MAX_FILES);
    expect(readPack(report.path).files).toHaveLength(PACK_MAX_FILES);
    writeFileSync(join(remote, "data", "one-more.txt"), "x");
    expect(await refusal(() => packPlugin(remote, join(root.dir, "too-many.tar.gz")))).toMatchObject({ code: "LIMIT_EXCEEDED" });
  });

  test(`paths of ${PACK_MAX_PATH_BYTES} bytes round-trip; ${PACK_MAX_PATH_BYTES + 1} are refused`, () => {
    const at = `${"d".repeat(155)}/${"f".repeat(PACK_MAX_PATH_BYTES - 156)}`;
    expect(Buffer.byteLength(at)).toBe(PACK_MAX_PATH_BYTES);
    expect(packPathProblem(at)).toBeNull();
    expect(readTar(writeTar([{ path: at, data: new Uint8Array([7]) }]), { maxFiles: 1, maxContentBytes: 1 })[0]!.path).toBe(at);
    expect(packPathProblem(`${at}x`)).toBe(`longer than ${PACK_MAX_PATH_BYTES} bytes`);
    expect(packPathProblem("f".repeat(101))).toContain("not storable in a tar header");
  });

  test(`a tar declaring ${PACK_MAX_CONTENT_BYTES} bytes of content is read on; one byte more is refused from its header`, () => {
    const declaring = (size: number) => {
      const tar = writeTar([{ path: "big", data: new Uint8Array(0) }]);
      tar.set(new TextEncoder().encode(size.toString(8).padStart(11, "0") + "\0"), 124);
      const sum = [...tar.subarray(0, 512)].reduce((a, b, i) => a + (i >= 148 && i < 156 ? 32 : b), 0);
      tar.set(new TextEncoder().encode(sum.toString(8).padStart(6, "0") + "\0 "), 148);
      return tar;
    };
    const limits = { maxFiles: 1, maxContentBytes: PACK_MAX_CONTENT_BYTES };
    expect(() => readTar(declaring(PACK_MAX_CONTENT_BYTES), limits)).toThrow("the pack is cut short inside big");
    expect(() => readTar(declaring(PACK_MAX_CONTENT_BYTES + 1), limits)).toThrow(`the pack's files exceed ${PACK_MAX_CONTENT_BYTES} bytes`);
  });

  test(`an archive of ${PACK_MAX_ARCHIVE_BYTES} bytes is read; one byte more is refused unread`, async () => {
    const sparse = (name: string, size: number) => {
      const path = join(root.dir, name);
      const fd = openSync(path, "w");
      ftruncateSync(fd, size);
      closeSync(fd);
      return path;
    };
    expect((await refusal(() => readPack(sparse("at-limit.tar.gz", PACK_MAX_ARCHIVE_BYTES)))).message).toContain("is not a gzip file");
    expect(await refusal(() => readPack(sparse("past-limit.tar.gz", PACK_MAX_ARCHIVE_BYTES + 1)))).toMatchObject({ code: "LIMIT_EXCEEDED" });
  });

  test(`a prx-pack.json of ${PACK_MANIFEST_MAX_BYTES} bytes is read; one byte more is refused`, async () => {
    const [manifest, ...files] = packEntries();
    const padded = (size: number) => {
      const data = new Uint8Array(size).fill(0x20);
      data.set(manifest!.data);
      return data;
    };
    const at = writePack("manifest-at.tar.gz", [{ path: PACK_MANIFEST_FILE, data: padded(PACK_MANIFEST_MAX_BYTES) }, ...files]);
    expect(readPack(at).manifest.name).toBe("packed-tool");
    const past = writePack("manifest-past.tar.gz", [{ path: PACK_MANIFEST_FILE, data: padded(PACK_MANIFEST_MAX_BYTES + 1) }, ...files]);
    expect(await refusal(() => readPack(past))).toMatchObject({ code: "LIMIT_EXCEEDED" });
  });
});
