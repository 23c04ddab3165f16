/**
 * The cost of one 200 KB data-URL image on a /v1/chat/completions turn: the built gateway answers text turns and
 * image turns (the same text, plus the image) against the fake provider, in alternating blocks at concurrency 1.
 * Measured as the gateway process's CPU per turn (all threads, from /proc/<pid>/stat: load-independent) and, beside
 * it, the wall-time p50 per turn. The fake runs in this process (its CPU is not the gateway's).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAI } from "../../fakes/openai-server.ts";
import { png } from "../../media/samples.ts";
import { stats, type BenchRow, type BenchSuite } from "../types.ts";

const IMAGE_BYTES = 200 * 1024;
const TARGET_MS = 2;

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  // utime and stime (fields 14 and 15 of the whole line) in clock ticks of 10 ms
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const suite: BenchSuite = async ({ binary, tmp, quick }) => {
  const fake = startFakeOpenAI();
  writeFileSync(
    join(tmp, "config.toml"),
    `default_provider = "fake"\nautonomy = { level = "full" }\ndefault_model = "fake-model"\n[providers.fake]\nkind = "openai-compatible"\nbase_url = "${fake.url}"\n` +
      `[reliability]\nretries = 0\n[memory]\nauto_recall = false\n[gateway]\nrequire_pairing = false\nrate_limit_per_minute = 100000000\n`,
  );
  const proc = Bun.spawn([binary, "gateway", "--port", "0", "-w", tmp], { env: { PATH: process.env.PATH ?? "", HOME: tmp }, stdout: "pipe", stderr: "ignore" });
  try {
    let seen = "";
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout as ReadableStream<Uint8Array>) {
      seen += decoder.decode(chunk, { stream: true });
      if (/listening on (\S+)/.test(seen)) break;
    }
    const url = /listening on (\S+)/.exec(seen)![1]!;
    const image = `data:image/png;base64,${Buffer.from(png(1024, 768, IMAGE_BYTES)).toString("base64")}`;
    // a text as long as the image's data URL can be (the gateway's USER_MESSAGE_MAX_CHARS is 256 KiB): what moving that many
    // bytes through the turn costs without any image handling
    const filler = "x".repeat(Math.min(image.length, 262_000));
    let n = 0;
    const turn = async (withImage: boolean | "long") => {
      const text = `what is this? ${n++}`;
      const content = withImage === "long" ? `${text} ${filler}` : withImage ? [{ type: "text", text }, { type: "image_url", image_url: { url: image } }] : text;
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "fake-model", messages: [{ role: "user", content }] }),
      });
      if (response.status !== 200) throw new Error(`turn answered ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
    };
    const block = async (withImage: boolean | "long", count: number) => {
      const walls: number[] = [];
      const before = cpuMs(proc.pid);
      for (let i = 0; i < count; i++) {
        const started = performance.now();
        await turn(withImage);
        walls.push(performance.now() - started);
      }
      return { cpu: (cpuMs(proc.pid) - before) / count, walls };
    };
    const perBlock = quick ? 50 : 400;
    await block(false, quick ? 50 : 500);
    await block(true, quick ? 50 : 500);
    const text = { cpu: [] as number[], walls: [] as number[] };
    const img = { cpu: [] as number[], walls: [] as number[] };
    const long: number[] = [];
    await block("long", quick ? 50 : 500);
    for (let round = 0; round < (quick ? 1 : 3); round++) {
      const a = await block(false, perBlock);
      const b = await block(true, perBlock);
      long.push((await block("long", perBlock)).cpu);
      text.cpu.push(a.cpu);
      text.walls.push(...a.walls);
      img.cpu.push(b.cpu);
      img.walls.push(...b.walls);
    }
    const median = (xs: number[]) => stats(xs).p50;
    const note = `machine load ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}; ${perBlock} turns a block, 3 blocks each`;
    return [
      { suite: "media", name: "gateway CPU per text turn (all threads)", value: median(text.cpu), unit: "ms", note } satisfies BenchRow,
      { suite: "media", name: "gateway CPU per turn with one 200 KB data-URL image", value: median(img.cpu), unit: "ms" },
      { suite: "media", name: "image turn CPU over the text turn", value: median(img.cpu) - median(text.cpu), unit: "ms", target: { op: "<=", value: TARGET_MS } },
      { suite: "media", name: `gateway CPU per turn with a ${filler.length}-character text instead (the same bytes, no image)`, value: median(long), unit: "ms" },
      { suite: "media", name: "turn wall p50, text / image (information)", value: median(text.walls), unit: "ms", note: `image: ${median(img.walls).toFixed(2)} ms` },
    ];
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
    await fake.stop();
  }
};

export default suite;
