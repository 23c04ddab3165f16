/**
 * The deepest nesting of arrays and objects accepted in JSON that comes from outside (HTTP bodies, plugin protocol
 * lines, MCP messages, provider and channel platform answers). Real documents stay far below it; a deeper one is
 * refused by a linear scan before JSON.parse, so no recursive walk (schema validation, cloning, stringify) ever
 * meets it.
 */
export const MAX_JSON_DEPTH = 64;
