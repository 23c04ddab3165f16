/** Types Bun has at run time but lib.dom/TypeScript do not declare yet (JSPI), and a package file import. */
declare namespace WebAssembly {
  class Suspending {
    constructor(fn: (...args: never[]) => unknown);
  }
  function promising<F extends (...args: never[]) => unknown>(
    fn: F,
  ): (...args: Parameters<F>) => Promise<Awaited<ReturnType<F>>>;
}

declare module "@bytecodealliance/jco-transpile/package.json" {
  const pkg: { version: string };
  export default pkg;
}
