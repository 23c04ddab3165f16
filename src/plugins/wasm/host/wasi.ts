import * as shim from "@bytecodealliance/preview2-shim";
import { WASIShim } from "@bytecodealliance/preview2-shim/instantiation";
import { type HostContext } from "./context.ts";
import { HTTP_PERMISSION, checkOutbound } from "./http-outbound.ts";
import { HostError } from "./errors.ts";

/**
 * WASI preview 2 from @bytecodealliance/preview2-shim, deny by default: empty env and args, no preopened
 * directories, no sockets, stdin at EOF, exit traps instead of ending the process, stdout/stderr into the
 * plugin's log, and outgoing wasi:http only under the http-outbound grant and http_allowlist.
 */
type AnyRecord = Record<string, unknown>;
const wasi = shim as unknown as {
  cli: AnyRecord;
  io: { streams: { OutputStream: new () => object; InputStream: new () => object } };
  http: { outgoingHandler: { handle(req: unknown, opts: unknown): unknown }; types: AnyRecord };
  sockets: Record<string, unknown> & { _denyTcp?: () => void; _denyUdp?: () => void; _denyDnsLookup?: () => void };
};

let socketsDenied = false;
function denySockets(): void {
  if (socketsDenied) return;
  socketsDenied = true;
  wasi.sockets._denyTcp?.();
  wasi.sockets._denyUdp?.();
  wasi.sockets._denyDnsLookup?.();
}

const LogStreamBase = wasi.io.streams.OutputStream;
const InputStreamBase = wasi.io.streams.InputStream;

/** An output-stream resource (instance of the shim's class, as jco checks) whose bytes become log lines. */
function logStream(ctx: HostContext, level: "info" | "warn"): object {
  const decoder = new TextDecoder();
  let pending = "";
  const write = (buf: Uint8Array) => {
    pending += decoder.decode(buf, { stream: true });
    let nl: number;
    while ((nl = pending.indexOf("\n")) >= 0) {
      ctx.log(level, pending.slice(0, nl));
      pending = pending.slice(nl + 1);
    }
    if (pending.length > 4096) {
      ctx.log(level, pending);
      pending = "";
    }
  };
  const stream = new LogStreamBase() as AnyRecord;
  Object.assign(stream, {
    checkWrite: () => 65536n,
    write,
    blockingWriteAndFlush: write,
    flush: () => {},
    blockingFlush: () => {},
    writeZeroes: (n: bigint) => write(new Uint8Array(Number(n))),
    blockingWriteZeroesAndFlush: (n: bigint) => write(new Uint8Array(Number(n))),
  });
  return stream;
}

function closedInput(): object {
  const closed = () => {
    throw { tag: "closed" };
  };
  const stream = new InputStreamBase() as AnyRecord;
  Object.assign(stream, { read: closed, blockingRead: closed, skip: closed, blockingSkip: closed });
  return stream;
}

interface SchemeValue {
  tag: string;
  val?: string;
}
interface OutgoingRequestLike {
  scheme(): SchemeValue | undefined;
  authority(): string | undefined;
  pathWithQuery(): string | undefined;
}

export function wasiImports(ctx: HostContext): Record<string, unknown> {
  denySockets();
  const stdout = logStream(ctx, "info");
  const stderr = logStream(ctx, "warn");
  const stdin = closedInput();
  const cli = {
    ...wasi.cli,
    environment: { getEnvironment: () => [], getArguments: () => [ctx.plugin.name], initialCwd: () => undefined },
    stdout: { getStdout: () => stdout },
    stderr: { getStderr: () => stderr },
    stdin: { getStdin: () => stdin },
    exit: {
      exit: (status: { tag: string }) => {
        throw new HostError(`plugin ${ctx.plugin.name} called wasi:cli/exit (${status.tag}); the call is aborted`);
      },
      exitWithCode: (code: number) => {
        throw new HostError(`plugin ${ctx.plugin.name} called wasi:cli/exit with code ${code}; the call is aborted`);
      },
    },
  };
  const http = {
    ...wasi.http,
    outgoingHandler: {
      handle(request: OutgoingRequestLike, options: unknown) {
        const scheme = request.scheme();
        const schemeText = !scheme ? "https" : scheme.tag === "other" ? scheme.val! : scheme.tag.toLowerCase();
        const url = `${schemeText}://${request.authority() ?? ""}${request.pathWithQuery() ?? "/"}`;
        try {
          checkOutbound(ctx, url, ["http:", "https:"], [HTTP_PERMISSION]);
        } catch (error) {
          ctx.log("warn", `wasi:http request denied: ${(error as Error).message}`);
          throw { payload: { tag: "HTTP-request-denied" } };
        }
        return wasi.http.outgoingHandler.handle(request, options);
      },
    },
  };
  const shimInstance = new WASIShim({
    cli,
    http,
    sandbox: { preopens: {} },
  } as unknown as ConstructorParameters<typeof WASIShim>[0]);
  return shimInstance.getImportObject() as unknown as Record<string, unknown>;
}

/** WASI import object keys, with and without the version a component asked for. */
export function wasiImportsFor(ctx: HostContext, requested: string[]): Record<string, unknown> {
  const base = wasiImports(ctx);
  const out: Record<string, unknown> = { ...base };
  for (const name of requested) {
    const at = name.indexOf("@");
    if (at < 0) continue;
    const bare = name.slice(0, at);
    if (bare in base) out[name] = base[bare];
  }
  return out;
}
