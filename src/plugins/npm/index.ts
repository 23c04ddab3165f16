/** elizaOS plugins from npm as plugin folders: add, update, remove (`prx plugins add|update|remove`). */
export { addNpmPlugin, removeNpmPlugin, updateNpmPlugin, type AddedPlugin, type AddOptions } from "./add.ts";
export { parseNpmSpec, pluginNameOf } from "./spec.ts";
