import { PUBLIC_ROUTE } from "./middleware/bearer-auth.ts";

/**
 * What the middleware need to know of the route table before routing: which methods a path answers to (a 405 names
 * them in its Allow header) and which paths are public (no bearer token). Both are read from the routes as they are
 * registered: a route is public when it was declared with the route option `auth: false`.
 */
export interface RouteEntry {
  method: string;
  path: string;
  hooks?: { [PUBLIC_ROUTE]?: boolean } | undefined;
}

export interface RouteTable {
  /** Methods answering `path` (sorted); empty when none, or when an ALL route matches. Not on the hot path. */
  methodsOf(path: string): string[];
  /** True when a route matching `path` needs no bearer token. */
  isPublic(path: string): boolean;
  /** Replace the table with these routes (once the app has them). */
  load(routes: readonly RouteEntry[]): void;
}

function patternOf(path: string): RegExp {
  const source = path
    .split("/")
    .map((part) => (part === "*" ? ".*" : part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${source}/?$`);
}

function isPublicRoute(route: RouteEntry): boolean {
  return route.hooks?.[PUBLIC_ROUTE] === true;
}

/** The trailing slash of a path other than "/" is not part of its route. */
function normalized(path: string): string {
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}

export function routeTable(initial: readonly RouteEntry[] = []): RouteTable {
  let entries: Array<{ method: string; pattern: RegExp }> = [];
  let publicExact = new Set<string>();
  let publicPatterns: RegExp[] = [];
  const table: RouteTable = {
    methodsOf(path) {
      const methods = new Set<string>();
      for (const route of entries) if (route.pattern.test(path)) methods.add(route.method);
      if (methods.has("ALL")) return [];
      return [...methods].sort();
    },
    isPublic(path) {
      const p = normalized(path);
      return publicExact.has(p) || publicPatterns.some((pattern) => pattern.test(p));
    },
    load(routes) {
      entries = routes.map((route) => ({ method: route.method.toUpperCase(), pattern: patternOf(route.path) }));
      const open = routes.filter(isPublicRoute);
      publicExact = new Set(open.filter((r) => !/[:*]/.test(r.path)).map((r) => normalized(r.path)));
      publicPatterns = open.filter((r) => /[:*]/.test(r.path)).map((r) => patternOf(r.path));
    },
  };
  table.load(initial);
  return table;
}
