/**
 * A config.toml edit on a running gateway, from the write to the outcome seen through GET /api/config/reload: an
 * edit applied live (a new temperature: the host's generation swap) and an invalid edit refused (the running config
 * stays). The watch's debounce (CONFIG_WATCH_DEBOUNCE_MS) is part of what is measured. Target: within 1 s.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stats, type BenchRow } from "./types.ts";

const EDITS = 20;
const QUICK_EDITS = 3;
const TARGET_MS = 1000;
/** An edit not seen in this long is a failure of the suite, not a slow row. */
const GIVE_UP_MS = 10_000;

interface Outcome {
  ok: boolean;
  generation: number;
  at: string;
}

export interface ConfigEditOptions {
  gatewayUrl: string;
  token: string;
  /** The workspace the gateway runs in (its config.toml is edited, then restored). */
  workspace: string;
  quick?: boolean;
}

async function last(options: ConfigEditOptions): Promise<Outcome | null> {
  const response = await fetch(`${options.gatewayUrl}/api/config/reload`, { headers: { authorization: `Bearer ${options.token}` } });
  if (response.status !== 200) throw new Error(`GET /api/config/reload answered ${response.status}`);
  return ((await response.json()) as { last: Outcome | null }).last;
}

/** Write `text` and wait until the gateway's last outcome passes `seen`; the time from the write. */
async function timedEdit(options: ConfigEditOptions, path: string, text: string, seen: (o: Outcome | null) => boolean): Promise<number> {
  const started = performance.now();
  writeFileSync(path, text);
  for (;;) {
    if (seen(await last(options))) return performance.now() - started;
    if (performance.now() - started > GIVE_UP_MS) throw new Error(`the gateway did not apply a config edit within ${GIVE_UP_MS} ms`);
    await Bun.sleep(1);
  }
}

export async function configEditRows(options: ConfigEditOptions): Promise<BenchRow[]> {
  const path = join(options.workspace, "config.toml");
  const original = readFileSync(path, "utf8");
  const edits = options.quick ? QUICK_EDITS : EDITS;
  const applied: number[] = [];
  const refused: number[] = [];
  try {
    for (let i = 0; i < edits; i++) {
      const before = (await last(options))?.generation ?? 1;
      const valid = `${original}\n[agent]\ntemperature = ${(0.1 + (i % 10) / 10).toFixed(1)}\n`;
      applied.push(await timedEdit(options, path, valid, (o) => o !== null && o.ok && o.generation > before));
      refused.push(await timedEdit(options, path, `${valid}max_tool_iterations = "many"\n`, (o) => o !== null && !o.ok));
    }
  } finally {
    writeFileSync(path, original);
  }
  await timedEdit(options, path, original, (o) => o !== null && o.ok);
  const row = (name: string, samples: number[]): BenchRow => {
    const { p50, p99 } = stats(samples);
    return {
      suite: "gateway",
      name: `config.toml edit -> ${name}, seen through /api/config/reload (p99 of ${samples.length})`,
      value: p99,
      unit: "ms",
      target: { op: "<=", value: TARGET_MS },
      note: `p50 ${p50.toFixed(1)} ms`,
    };
  };
  return [row("applied live", applied), row("refused, running config kept", refused)];
}
