import type { TelemetryConfig } from "../config/schema.ts";
import { PrxError } from "../core/errors.ts";
import { NOOP_TRACER } from "./noop.ts";
import type { Tracer } from "./types.ts";

/**
 * The host's tracer: the no-op tracer when `[telemetry] otlp_endpoint` is unset (nothing more is loaded), else a
 * recording tracer exporting OTLP/JSON to `<endpoint>/v1/traces`. A header whose environment variable is unset is
 * an error at start, not a receiver refusing every export later.
 */
export async function openTracer(config: TelemetryConfig, env: Record<string, string | undefined>): Promise<Tracer> {
  if (config.otlp_endpoint === undefined) return NOOP_TRACER;
  const headers = exportHeaders(config, env);
  const [{ OtlpExporter }, { RecordingTracer }] = await Promise.all([import("./exporter.ts"), import("./tracer.ts")]);
  const sink = new OtlpExporter({
    url: tracesUrl(config.otlp_endpoint),
    headers,
    resource: { serviceName: config.service_name, scopeName: "prx" },
    encoding: config.protocol === "http/protobuf" ? "protobuf" : "json",
  });
  return new RecordingTracer({ sink, sampleRatio: config.sample_ratio });
}

/** `[telemetry] headers` with their values from the environment; CONFIG_INVALID naming an unset variable. */
export function exportHeaders(config: TelemetryConfig, env: Record<string, string | undefined>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, variable] of Object.entries(config.headers)) {
    const value = env[variable];
    if (value === undefined || value === "") {
      throw new PrxError("CONFIG_INVALID", `[telemetry] headers.${name} names the environment variable ${variable}, which is not set`, {
        hint: `set ${variable}, or remove ${name} from [telemetry] headers`,
      });
    }
    headers[name] = value;
  }
  return headers;
}

/** The base URL with `/v1/traces` appended, as OTLP/HTTP exporters do; a URL already ending in it is taken as it is. */
export function tracesUrl(endpoint: string): string {
  const base = endpoint.replace(/\/+$/, "");
  return base.endsWith("/v1/traces") ? base : `${base}/v1/traces`;
}
