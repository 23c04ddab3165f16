import type { PluginInfo } from "../plugins/api.ts";
import type { PluginCheck } from "../plugins/kit/check.ts";
import { visible } from "../core/terminal.ts";

/** A plugin's status with whether its guest runs: `active, idle (not started)`, `active, running`. */
export function statusText(info: PluginInfo): string {
  if (info.status !== "active" || info.run_state === null) return info.status;
  return `${info.status}, ${info.run_state === "idle" ? "idle (not started)" : info.run_state}`;
}

/** How `prx plugins info`, `validate`, `test` and `install` print a plugin. */
export function formatInfo(info: PluginInfo): string {
  const lines = [
    `${info.name} ${info.version ?? "?"} (${info.kind ?? "unknown kind"}) — ${statusText(info)}`,
    ...(info.message ? [`  message: ${info.message.replaceAll("\n", "\n    ")}`] : []),
    `  dir: ${info.dir}`,
    ...(info.description ? [`  description: ${info.description}`] : []),
    `  permissions: required [${info.permissions.required.join(", ")}], optional [${info.permissions.optional.join(", ")}]`,
    `               granted [${info.permissions.granted.join(", ")}]` +
      (info.permissions.missing.length ? `, missing [${info.permissions.missing.join(", ")}]` : ""),
    "  capabilities:",
  ];
  for (const cap of info.capabilities) {
    const c = cap.counters;
    const extra = [
      cap.events.length ? `events ${cap.events.join(" ")}` : "",
      cap.schedule ? `schedule "${cap.schedule}"` : "",
      cap.type === "middleware" ? `stages ${cap.stages.join(",")}` : "",
    ].filter(Boolean);
    lines.push(
      `    ${cap.type}:${cap.name} priority ${cap.priority}${cap.live ? "" : " (no live adapter)"}${extra.length ? " " + extra.join(" ") : ""}`,
      `      invocations ${c.invocations}, errors ${c.errors}, last ${c.last_duration_ms ?? "-"} ms` +
        (c.last_event ? `, last event ${c.last_event.name} at ${c.last_event.at}` : "") +
        (c.last_error ? `\n      last error at ${c.last_error.at}: ${c.last_error.message}` : "") +
        (c.last_block
          ? `\n      blocks ${c.blocks}, last at ${c.last_block.at} (${c.last_block.stage}): ${c.last_block.reason}`
          : ""),
    );
  }
  if (info.capabilities.length === 0) lines.push("    (none)");
  if (info.remote) lines.push(...formatRemote(info.remote));
  if (info.host_calls?.refused) {
    lines.push(`  host calls refused ${info.host_calls.refused} (over its budget), last at ${info.host_calls.last_refusal}`);
  }
  for (const warning of info.warnings) lines.push(`  warning: ${warning}`);
  return visible(lines.join("\n"), { multiline: true });
}

/** A plugin that is not running says whether it ever ran in this host (its first call starts it either way). */
function remoteState(r: NonNullable<PluginInfo["remote"]>): string {
  if (r.state !== "idle") return r.state;
  return r.ready_ms === null ? "idle (not started)" : "idle (stopped when unused)";
}

function formatRemote(r: NonNullable<PluginInfo["remote"]>): string[] {
  const surfaces = Object.entries(r.surfaces)
    .filter(([, names]) => names.length > 0)
    .map(([kind, names]) => `${kind} ${names.join(", ")}`);
  return [
    `  remote: ${r.transport} ${remoteState(r)}${r.pid ? ` pid ${r.pid}` : ""}${r.ready_ms === null ? "" : `, ready in ${r.ready_ms.toFixed(0)} ms`}, restarts ${r.restarts}`,
    `    calls ${r.calls}, failures ${r.failures}, timeouts ${r.timeouts}, in flight ${r.in_flight}, host calls ${r.host_calls}${r.host_refused ? ` (${r.host_refused} refused, last at ${r.last_host_refusal})` : ""}, callbacks ${r.callbacks}, refused lines ${r.malformed + r.oversize}`,
    ...(surfaces.length ? [`    surfaces: ${surfaces.join("; ")}`] : []),
    ...(r.last_error ? [`    last error: ${r.last_error}`] : []),
  ];
}

/** `validate`'s report as text (also printed by `prx plugins test` and `install`). */
export function formatCheck(dir: string, report: PluginCheck): string {
  return [
    `${dir}: ${report.ok ? "valid" : "INVALID"}`,
    formatInfo(report.info),
    ...report.tools.map((tool) => `  tool spec: ${tool.name} — ${tool.description}`),
    ...report.notes.map((note) => `  ${note}`),
  ].map((line) => visible(line, { multiline: true })).join("\n");
}

