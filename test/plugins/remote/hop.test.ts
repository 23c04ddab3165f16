import { describe, expect, test } from "bun:test";
import { existsSync, fstatSync, mkdtempSync, openSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childProcessHop, HOP_WORKER_DATA_KEY, HopBoxes, openProcessHop, REMOTE_HOP_FD_ENV } from "../../../src/plugins/remote/hop/index.ts";
import { startProcessTransport, startWorkerTransport, type HostTransport } from "../../../src/plugins/remote/transport/index.ts";
import { bootstrap, type WorkerChannel } from "../../../src/plugins/remote/worker-runtime/index.ts";
import { captureLogger } from "../events/log.ts";
import { memoryChannel, PROBE } from "./helpers.ts";

describe("the hop's counts", () => {
  test("a Worker gets them through workerData; anything else is no hop", () => {
    const boxes = new HopBoxes();
    const again = HopBoxes.ofWorkerData({ [HOP_WORKER_DATA_KEY]: boxes.buffers })!;
    boxes.toPlugin.posted();
    expect(again.toPlugin.seen()).toBe(1);
    expect(HopBoxes.ofWorkerData(null)).toBeNull();
    expect(HopBoxes.ofWorkerData({ [HOP_WORKER_DATA_KEY]: { toPlugin: new ArrayBuffer(4), toHost: new ArrayBuffer(4) } })).toBeNull();
    expect(HopBoxes.ofWorkerData({ [HOP_WORKER_DATA_KEY]: { toPlugin: new SharedArrayBuffer(2), toHost: new SharedArrayBuffer(4) } })).toBeNull();
  });

  /** Start `transport`, send 5 echo calls in one turn (watching for answers), wait for their 5 answers. */
  async function callFive(transport: HostTransport): Promise<{ received: Array<{ type: string; requestId?: number }>; sentBefore: number }> {
    const received: Array<{ type: string; requestId?: number }> = [];
    let wake = () => {};
    transport.onMessage((text) => {
      const m = JSON.parse(text) as { type: string; requestId?: number };
      if (m.type === "host-rpc") {
        transport.send(JSON.stringify({ type: "host-rpc-result", requestId: m.requestId, ok: true, payload: null }));
      }
      received.push(m);
      wake();
    });
    const until = async (ok: () => boolean) => {
      while (!ok()) await new Promise<void>((resolve) => (wake = resolve));
    };
    await until(() => received.some((m) => m.type === "init-complete"));
    const sentBefore = transport.hop!.toPlugin.seen();
    for (let i = 1; i <= 5; i++) {
      transport.send(JSON.stringify({ type: "worker-rpc", requestId: i, surface: "service", target: "service:ECHO.echo", args: { args: [i] } }));
      transport.expectAnswer();
    }
    await until(() => received.filter((m) => m.type === "worker-rpc-result").length === 5);
    return { received, sentBefore };
  }

  test("a plugin Worker counts each message each side posted", async () => {
    const transport = startWorkerTransport({ name: "probe", entry: PROBE, settings: {}, rpcTimeoutMs: 5000 });
    try {
      const { received, sentBefore } = await callFive(transport);
      expect(transport.hop!.toPlugin.seen()).toBeGreaterThanOrEqual(sentBefore + 5);
      // the Worker counts a message right after posting it
      while (transport.hop!.toHost.seen() < received.length) await Bun.sleep(1);
      expect(transport.hop!.toHost.seen()).toBeGreaterThanOrEqual(received.length);
    } finally {
      transport.kill();
    }
  });

  test("a plugin subprocess counts in a page both processes map: each batch of lines written, on both sides", async () => {
    const transport = startProcessTransport({ name: "probe", entry: PROBE, settings: {}, rpcTimeoutMs: 5000 });
    try {
      const hop = transport.hop!;
      expect(hop).not.toBeNull();
      const { received, sentBefore } = await callFive(transport);
      // the five calls of one turn left in one write (and the answers to the child's host calls in others)
      expect(hop.toPlugin.seen()).toBeGreaterThanOrEqual(sentBefore + 1);
      expect(hop.toPlugin.seen() - sentBefore).toBeLessThan(5);
      while (hop.toHost.seen() < 2) await Bun.sleep(1);
      expect(hop.toHost.seen()).toBeGreaterThanOrEqual(2);
      expect(hop.toHost.seen()).toBeLessThanOrEqual(received.length);
    } finally {
      transport.kill();
    }
  });
});

describe("a subprocess's hop counts (process-hop.ts)", () => {
  test("host and child see each other's counts; the file is gone from disk and the child's descriptor closed", async () => {
    const shared = openProcessHop()!;
    expect(shared).not.toBeNull();
    const child = Bun.spawn(
      [
        process.execPath,
        "-e",
        `const { childProcessHop } = await import(${JSON.stringify(new URL("../../../src/plugins/remote/hop/index.ts", import.meta.url).pathname)});
         const hop = childProcessHop();
         hop.toHost.posted(); hop.toHost.posted();
         const { existsSync } = await import("node:fs");
         console.log(JSON.stringify({ sawHost: hop.toPlugin.seen(), fdOpen: existsSync("/proc/self/fd/3") }));`,
      ],
      { stdio: ["ignore", "pipe", "inherit", shared.fd], env: { PATH: process.env.PATH ?? "", [REMOTE_HOP_FD_ENV]: "3" } },
    );
    shared.closeFd();
    shared.boxes.toPlugin.posted();
    const out = JSON.parse(await new Response(child.stdout).text()) as { sawHost: number; fdOpen: boolean };
    expect(await child.exited).toBe(0);
    expect(out.fdOpen).toBe(false);
    expect(out.sawHost).toBeLessThanOrEqual(1);
    expect(shared.boxes.toHost.seen()).toBe(2);
    expect(readdirSync(existsSync("/dev/shm") ? "/dev/shm" : tmpdir()).some((name) => name.startsWith(`prx-hop-${process.pid}-`))).toBe(false);
  });

  test("no variable, or one that is not a descriptor number: no hop", () => {
    expect(childProcessHop({})).toBeNull();
    expect(childProcessHop({ [REMOTE_HOP_FD_ENV]: "three" })).toBeNull();
  });

  test("no directory to make the page in: no hop, the reason and errno said at debug", () => {
    const log = captureLogger();
    const dir = join(tmpdir(), `prx-hop-test-missing-${crypto.randomUUID()}`);
    expect(openProcessHop({ dir, log })).toBeNull();
    expect(log.records.map((r) => [r.level, r.fields?.code])).toEqual([["debug", "ENOENT"]]);
    expect(String(log.records[0]!.fields?.reason)).toStartWith(`cannot map the hop's counts in ${dir}: `);
  });

  test("a child given a descriptor that is not open: no hop; the failed mapping and the failed close said at debug", () => {
    const log = captureLogger();
    expect(childProcessHop({ [REMOTE_HOP_FD_ENV]: "987" }, log)).toBeNull();
    expect(log.records.map((r) => [r.level, r.fields?.code])).toEqual([
      ["debug", "ENOENT"],
      ["debug", "EBADF"],
    ]);
    expect(String(log.records[0]!.fields?.reason)).toStartWith("cannot map the hop's counts from descriptor 987: ");
    expect(log.records[1]!.fields?.fd).toBe(987);
  });

  test("a child given a file too short for the counts: no hop, said at debug, and the descriptor closed", () => {
    const log = captureLogger();
    const dir = mkdtempSync(join(tmpdir(), "prx-hop-test-"));
    try {
      const path = join(dir, "short");
      writeFileSync(path, new Uint8Array(4));
      const fd = openSync(path, "r+");
      expect(childProcessHop({ [REMOTE_HOP_FD_ENV]: String(fd) }, log)).toBeNull();
      expect(log.records.map((r) => [r.level, r.fields?.code])).toEqual([["debug", "PLUGIN_LOAD"]]);
      expect(String(log.records[0]!.fields?.reason)).toContain("4 bytes");
      expect(() => fstatSync(fd)).toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a subprocess without the page: nothing watches, and its lines still go through the pipes", async () => {
    const transport = startProcessTransport({ name: "probe", entry: PROBE, settings: {}, rpcTimeoutMs: 5000 }, () => null);
    try {
      expect(transport.hop).toBeNull();
      const received: Array<{ type: string; requestId?: number; ok?: boolean; payload?: unknown }> = [];
      let wake = () => {};
      transport.onMessage((text) => {
        const m = JSON.parse(text) as (typeof received)[number];
        if (m.type === "host-rpc") transport.send(JSON.stringify({ type: "host-rpc-result", requestId: m.requestId, ok: true, payload: null }));
        received.push(m);
        wake();
      });
      const until = async (ok: () => boolean) => {
        while (!ok()) await new Promise<void>((resolve) => (wake = resolve));
      };
      await until(() => received.some((m) => m.type === "init-complete"));
      transport.send(JSON.stringify({ type: "worker-rpc", requestId: 1, surface: "service", target: "service:ECHO.echo", args: { args: ["plain"] } }));
      transport.expectAnswer();
      await until(() => received.some((m) => m.type === "worker-rpc-result"));
      const answer = received.find((m) => m.type === "worker-rpc-result")!;
      expect(answer.requestId).toBe(1);
      expect(answer.ok).toBe(true);
    } finally {
      transport.kill();
    }
  });
});

describe("the dispatcher hands each answer to the channel's linger", () => {
  test("after each answer, with whether no other call is running then", async () => {
    const ch = memoryChannel();
    const idle: Array<() => boolean> = [];
    const channel: WorkerChannel = { ...ch.channel, afterAnswer: (isIdle) => void idle.push(isIdle) };
    let release = () => {};
    class S {
      static serviceType = "S";
      static rpcMethods = ["fast", "slow"];
      static async start() {
        return new S();
      }
      fast() {
        return 1;
      }
      slow() {
        return new Promise<number>((resolve) => (release = () => resolve(2)));
      }
    }
    await bootstrap({ name: "hop", services: [S as never] }, { channel });
    const call = (requestId: number, method: string) => {
      ch.deliver({ type: "worker-rpc", requestId, surface: "service", target: `service:S.${method}`, args: { args: [] } });
      return ch.next((m) => m.type === "worker-rpc-result" && m.requestId === requestId);
    };
    await call(1, "fast");
    expect(idle.map((isIdle) => isIdle())).toEqual([true]);
    const slow = call(2, "slow");
    await call(3, "fast");
    expect(idle.length).toBe(2);
    expect(idle[1]!()).toBe(false);
    release();
    await slow;
    expect(idle.length).toBe(3);
    expect(idle[2]!()).toBe(true);
  });
});
