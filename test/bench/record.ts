/**
 * The performance record: the table of one whole `bun run bench` (every suite, one binary), written into
 * test/bench/README.md between two markers, with the date, the binary's commit and the machine's load average
 * beside each suite. A partial run never touches it, so every figure in the record comes from the same run.
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { BenchRow } from "./types.ts";

export const RECORD_START = "<!-- bench-record:start -->";
export const RECORD_END = "<!-- bench-record:end -->";

export interface SuiteRun {
  name: string;
  seconds: number;
  /** The one-minute load average when the suite started and when it ended. */
  load: [number, number];
}

export interface RunRecord {
  started: Date;
  ended: Date;
  binary: string;
  bun: string;
  cpus: number;
  suites: SuiteRun[];
  rows: BenchRow[];
}

/** The one-minute load average, or NaN where /proc is not there to read. */
export function loadAverage(): number {
  try {
    return Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);
  } catch {
    return NaN;
  }
}

export function formatValue(v: number): string {
  return Number.isNaN(v) ? "n/a" : v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(2) : v.toFixed(3);
}

export function measuredValue(row: BenchRow): number {
  return row.target?.ratio ? (row.floor?.ratio ?? NaN) : row.value;
}

export function meetsTarget(row: BenchRow): boolean | undefined {
  if (!row.target) return undefined;
  const v = measuredValue(row);
  return row.target.op === "<=" ? v <= row.target.value : v >= row.target.value;
}

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");
const minute = (d: Date) => d.toISOString().slice(0, 16).replace("T", " ");

export function renderRecord(run: RunRecord): string {
  const loads = run.suites.flatMap((s) => s.load).filter((l) => !Number.isNaN(l));
  const range = loads.length ? `${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}` : "unknown";
  const lines = [
    `One run of \`bun run bench\`, every suite, ${minute(run.started)} to ${minute(run.ended)} UTC; binary ${run.binary};`,
    `Bun ${run.bun}, ${run.cpus} CPUs; one-minute load average ${range}. Written by the harness: a partial run leaves it as it was.`,
    "",
    "| suite | load at start / end | measure | value | floor | target | met | note |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const suite of run.suites) {
    const load = suite.load.map((l) => l.toFixed(1)).join(" / ");
    for (const row of run.rows.filter((r) => r.suite === suite.name)) {
      const value = `${formatValue(row.value)} ${row.unit}`;
      const floor = row.floor ? `${formatValue(row.floor.value)} (${row.floor.name}): x${row.floor.ratio.toFixed(2)}` : "";
      const target = row.target ? `${row.target.op} ${row.target.ratio ? "x" : ""}${row.target.value}` : "";
      const met = meetsTarget(row);
      lines.push(
        `| ${cell(suite.name)} | ${load} | ${cell(row.name)} | ${value} | ${cell(floor)} | ${target} | ${met === undefined ? "" : met ? "yes" : "**no**"} | ${cell(row.note ?? "")} |`,
      );
    }
  }
  return lines.join("\n");
}

/** Replaces what stands between the markers of `file`; a file without both markers is an error, never rewritten. */
export function writeRecord(file: string, record: string): void {
  const text = readFileSync(file, "utf8");
  const start = text.indexOf(RECORD_START);
  const end = text.indexOf(RECORD_END);
  if (start < 0 || end < start) {
    throw new Error(`${file} has no ${RECORD_START} ... ${RECORD_END} section: add both markers where the record goes`);
  }
  writeFileSync(file, `${text.slice(0, start + RECORD_START.length)}\n${record}\n${text.slice(end)}`);
}
