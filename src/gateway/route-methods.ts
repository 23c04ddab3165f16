/**
 * Which methods a path answers to, from the app's route table: what a 405 names in its Allow header. Built once
 * from the registered routes and consulted only for requests no route matched (never on the hot path).
 */
export interface RouteEntry {
  method: string;
  path: string;
}

export type MethodsOf = (path: string) => string[];

function patternOf(path: string): RegExp {
  const source = path
    .split("/")
    .map((part) => (part === "*" ? ".*" : part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${source}/?$`);
}

export function routeMethods(routes: readonly RouteEntry[]): MethodsOf {
  const table = routes.map((route) => ({ method: route.method.toUpperCase(), pattern: patternOf(route.path) }));
  return (path) => {
    const methods = new Set<string>();
    for (const route of table) if (route.pattern.test(path)) methods.add(route.method);
    if (methods.has("ALL")) return [];
    return [...methods].sort();
  };
}
