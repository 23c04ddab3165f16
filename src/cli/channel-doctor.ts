import { errorMessage } from "../core/errors.ts";
import { colorEnabled, paint, terminalJson, visible } from "../core/terminal.ts";
import { DOCTOR_PROBE_TIMEOUT_MS } from "./doctor.ts";

/**
 * `prx channel doctor <name>`: the channel's adapter is built from config.toml and the environment (a missing key or
 * variable fails here, saying which) and, where its platform has a call for it, its credentials are checked against
 * the platform; nothing is received and no process is started.
 */
export async function channelDoctor(name: string, workspaceFlag: string | undefined, json: boolean): Promise<number> {
  const { readChannelTarget } = await import("../channels/connect.ts");
  const { createChannel } = await import("../channels/registry.ts");
  const { createLogger } = await import("../core/logger.ts");
  let status: "ok" | "warn" | "fail" = "ok";
  let detail: string;
  let kind = "";
  try {
    const target = await readChannelTarget(name, workspaceFlag, process.env);
    kind = target.kind;
    const channel = await createChannel(target.kind, {
      name,
      config: target.config,
      env: process.env,
      logger: createLogger(`channel.${name}`),
      cursor: { get: () => null, set: () => undefined },
      limits: { requestTimeoutMs: DOCTOR_PROBE_TIMEOUT_MS },
    });
    try {
      if (channel.checkCredentials) detail = await channel.checkCredentials();
      else {
        status = "warn";
        detail = `configuration read; ${target.kind} has no credential check here (prx channel run ${name} connects with them)`;
      }
    } finally {
      await channel.stop();
    }
  } catch (error) {
    status = "fail";
    detail = errorMessage(error);
  }
  if (json) process.stdout.write(terminalJson({ channel: name, kind, status, detail }) + "\n");
  else {
    const label = paint(colorEnabled(process.stdout), status === "ok" ? "32" : status === "warn" ? "33" : "31", status.toUpperCase().padEnd(4));
    process.stdout.write(`${label} channel ${visible(name)}${kind ? ` (${kind})` : ""}: ${visible(detail, { multiline: true })}\n`);
  }
  return status === "fail" ? 1 : 0;
}
