/**
 * Host name rules of the outbound guard: an entry is a host name (`example.com`, exactly that host) or `*.` and a
 * name (`*.example.com`, every subdomain of it, not the name itself). Names compare without case or a trailing dot;
 * an IP literal is matched as written (`10.0.0.5`, `[::1]` without brackets).
 */
export function normalizeHost(host: string): string {
  return host.toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
}

export function hostMatches(entry: string, host: string): boolean {
  const name = normalizeHost(host);
  const rule = normalizeHost(entry);
  if (rule.startsWith("*.")) return name.endsWith(rule.slice(1)) && name.length > rule.length - 1;
  return name === rule;
}

export function matchesAny(entries: readonly string[], host: string): boolean {
  return entries.some((entry) => hostMatches(entry, host));
}
