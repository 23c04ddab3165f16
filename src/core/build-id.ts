declare const PRX_BUILD_ID: string | undefined;

/**
 * A hash of the sources the binary was built from (build.ts defines it); undefined when prx runs from source.
 * Caches of derived data (the validated config) are keyed by it, so a new build never reads an older build's shapes.
 */
export const BUILD_ID: string | undefined = typeof PRX_BUILD_ID === "string" ? PRX_BUILD_ID : undefined;
