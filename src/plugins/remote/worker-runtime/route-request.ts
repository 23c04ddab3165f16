import { Readable } from "node:stream";
import type { RouteFile, RouteRequest } from "./types.ts";

/** A multipart file as it crosses the wire: its bytes base64-encoded. */
export interface WireRouteFile {
  fieldname: string;
  originalname: string;
  mimetype: string;
  size: number;
  base64: string;
}

/** A route request as the host sends it (routes.ts); `bodyBase64` carries a body of no parsed type. */
export interface WireRouteRequest {
  method: string;
  path: string;
  url: string;
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body: unknown;
  bodyBase64?: string;
  /** A body prx left unparsed (multipart on a route not declared isMultipart), for the plugin to read as a stream. */
  streamBase64?: string;
  files?: WireRouteFile[];
}

/** The Express-compatible req a route handler gets; a Readable of the body when prx did not parse it. */
export function routeRequest(wire: WireRouteRequest): RouteRequest {
  const files: RouteFile[] | undefined = wire.files?.map((f) => ({
    fieldname: f.fieldname,
    originalname: f.originalname,
    encoding: "7bit",
    mimetype: f.mimetype,
    size: f.size,
    buffer: Buffer.from(f.base64, "base64"),
  }));
  const header = (name: string) => wire.headers[name.toLowerCase()];
  const req: RouteRequest = {
    method: wire.method,
    path: wire.path,
    url: wire.url,
    originalUrl: wire.url,
    params: wire.params,
    query: wire.query,
    headers: wire.headers,
    body: wire.bodyBase64 !== undefined ? Buffer.from(wire.bodyBase64, "base64") : wire.body,
    ...(files ? { files } : {}),
    get: header,
    header,
  };
  const raw = wire.streamBase64 ?? wire.bodyBase64;
  if (raw === undefined) return req;
  // an unparsed body can also be read as a stream, as from Express's req (multer pipes req into busboy)
  const bytes = Buffer.from(raw, "base64");
  const stream = new Readable({
    read() {
      this.push(bytes);
      this.push(null);
    },
  });
  return Object.assign(stream, req);
}
