// The part of `bun:test` plugin tests use, for editors of a plugin folder without @types/bun. (prx runs the tests
// with the bun built into it; this file only gives the editor the types.)
declare module "bun:test" {
  type Fn = () => unknown;
  interface Test {
    (name: string, fn: Fn, timeoutMs?: number): void;
    skip(name: string, fn: Fn, timeoutMs?: number): void;
    only(name: string, fn: Fn, timeoutMs?: number): void;
    todo(name: string, fn?: Fn): void;
  }
  export const test: Test;
  export const it: Test;
  export function describe(name: string, fn: () => void): void;
  export function beforeAll(fn: Fn, timeoutMs?: number): void;
  export function afterAll(fn: Fn, timeoutMs?: number): void;
  export function beforeEach(fn: Fn, timeoutMs?: number): void;
  export function afterEach(fn: Fn, timeoutMs?: number): void;
  export function setDefaultTimeout(ms: number): void;

  interface Matchers<R = void> {
    not: Matchers<R>;
    resolves: Matchers<Promise<void>>;
    rejects: Matchers<Promise<void>>;
    toBe(expected: unknown): R;
    toEqual(expected: unknown): R;
    toStrictEqual(expected: unknown): R;
    toMatchObject(expected: object): R;
    toContain(expected: unknown): R;
    toMatch(expected: string | RegExp): R;
    toHaveLength(length: number): R;
    toHaveProperty(path: string, value?: unknown): R;
    toBeNull(): R;
    toBeUndefined(): R;
    toBeDefined(): R;
    toBeTruthy(): R;
    toBeFalsy(): R;
    toBeGreaterThan(n: number): R;
    toBeGreaterThanOrEqual(n: number): R;
    toBeLessThan(n: number): R;
    toBeLessThanOrEqual(n: number): R;
    toThrow(expected?: string | RegExp): R;
  }
  export function expect(actual: unknown): Matchers;
}
