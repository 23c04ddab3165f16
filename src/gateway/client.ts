/** The peer address of each request, recorded by the server (Bun's server.requestIP) before routing. */
const addresses = new WeakMap<Request, string>();

export const LOCAL_CLIENT = "local";

export function rememberClientAddress(request: Request, address: string | undefined): void {
  if (address) addresses.set(request, address);
}

export function recordedClientAddress(request: Request): string {
  return addresses.get(request) ?? LOCAL_CLIENT;
}
