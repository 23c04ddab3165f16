/** `/api/sessions/:id` -> `/api/sessions/{id}`; a trailing `*` becomes `{path}`. */
export function openApiPath(path: string): string {
  return path
    .split("/")
    .map((part) => (part.startsWith(":") ? `{${part.slice(1)}}` : part === "*" ? "{path}" : part))
    .join("/");
}
