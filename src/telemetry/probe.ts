import type { TelemetryConfig } from "../config/schema.ts";
import { errorMessage } from "../core/errors.ts";
import { exportHeaders, tracesUrl } from "./open.ts";

/**
 * Whether `[telemetry] otlp_endpoint` takes an export: an empty ExportTraceServiceRequest in the configured encoding
 * (no span is recorded by it). Null when it answers 2xx, else what went wrong (`prx doctor`).
 */
export async function probeReceiver(config: TelemetryConfig, env: Record<string, string | undefined>, signal: AbortSignal): Promise<string | null> {
  if (config.otlp_endpoint === undefined) return null;
  const url = tracesUrl(config.otlp_endpoint);
  const protobuf = config.protocol === "http/protobuf";
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { ...exportHeaders(config, env), "content-type": protobuf ? "application/x-protobuf" : "application/json" },
      // an empty message is zero bytes in protobuf
      body: protobuf ? new Uint8Array() : JSON.stringify({ resourceSpans: [] }),
      signal,
    });
    await response.arrayBuffer();
    return response.ok ? null : `${url} answered HTTP ${response.status}`;
  } catch (error) {
    return `${url}: ${errorMessage(error)}`;
  }
}
