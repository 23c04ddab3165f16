/** A setting a running process reads at each use: a value fixed at start, or a function answering the one in effect now. */
export type Setting<T> = T | (() => T);

/** The value of a setting now. */
export function settingNow<T extends number | boolean | string>(setting: Setting<T>): T {
  return typeof setting === "function" ? setting() : setting;
}
