/**
 * A point in time as the terminal shows it, everywhere alike: `2026-12-05 06:32:10 UTC` (to the second, in UTC, as
 * logs and stored times are). JSON output keeps ISO-8601 instead. A value that is no time is shown as it is.
 */
export function timeText(value: string | number | Date): string {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}
