/** WASM plugins that start on their first call: cached declarations and the instance that opens its guest on demand. */
export {
  declarationCache,
  declarationCount,
  declarationKey,
  declarationName,
  DECLARATION_CACHE_VERSION,
  type DeclarationCache,
  type Declarations,
} from "./declarations.ts";
export { LazyWasmInstance, type LazyWasmOptions } from "./lazy-instance.ts";
