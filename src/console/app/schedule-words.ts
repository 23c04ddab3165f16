/** A cron tool job's schedule as GET /api/cron/jobs gives it. */
export interface JobSchedule {
  kind: string;
  at?: string;
  every_ms?: number;
  expr?: string;
  tz?: string;
}

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const MACROS: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

const number = (text: string): number | null => (/^\d{1,2}$/.test(text) ? Number(text) : null);
const two = (n: number) => String(n).padStart(2, "0");
const plural = (n: number, unit: string) => (n === 1 ? unit : `${n} ${unit}s`);
const and = (items: string[]) => (items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`);

/** An interval in its largest whole unit: "every 5 minutes", "every day"; else in ms. */
function interval(ms: number): string {
  for (const [unit, size] of [["day", 86_400_000], ["hour", 3_600_000], ["minute", 60_000], ["second", 1000]] as const) {
    if (ms >= size && ms % size === 0) return `every ${plural(ms / size, unit)}`;
  }
  return `every ${ms} ms`;
}

/** A UTC instant to the second, the way the console and the CLI show times. */
export function utcText(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** The day-of-week field in words ("Monday to Friday", "Saturday and Sunday"), or null when it is not a plain one. */
function weekdays(field: string): string | null {
  const ranged = /^([0-7])-([0-7])$/.exec(field);
  if (ranged) return `${DAYS[Number(ranged[1]) % 7]} to ${DAYS[Number(ranged[2]) % 7]}`;
  const days = field.split(",").map((d) => (/^[0-7]$/.test(d) ? DAYS[Number(d) % 7]! : null));
  return days.every((d) => d !== null) ? and(days as string[]) : null;
}

/** Which days: "every day", "Monday to Friday", "on day 1 of each month", "on 1 January"; null when not plain. */
function whichDays(dom: string, month: string, dow: string): string | null {
  if (dom === "*" && month === "*") return dow === "*" ? "every day" : weekdays(dow);
  if (dow !== "*") return null;
  const day = number(dom);
  if (day === null) return null;
  if (month === "*") return `on day ${day} of each month`;
  const m = number(month);
  return m !== null && m >= 1 && m <= 12 ? `on ${day} ${MONTHS[m - 1]}` : null;
}

/** Which times of those days: "at 09:00", "at 09:00 and 17:30", "every 15 minutes", "every hour at :05". */
function whichTimes(minute: string, hour: string): string | null {
  const m = number(minute);
  const step = /^\*\/(\d+)$/;
  if (hour === "*") {
    if (minute === "*") return "every minute";
    const every = step.exec(minute);
    if (every) return `every ${plural(Number(every[1]), "minute")}`;
    return m === null ? null : `every hour at :${two(m)}`;
  }
  if (m === null) return null;
  const everyHours = step.exec(hour);
  if (everyHours) return `every ${plural(Number(everyHours[1]), "hour")} at :${two(m)}`;
  const hours = hour.split(",").map(number);
  return hours.every((x) => x !== null) ? `at ${and(hours.map((x) => `${two(x!)}:${two(m)}`))}` : null;
}

function cronWords(expr: string, tz: string | undefined): string {
  let text = expr.trim();
  text = MACROS[text.toLowerCase()] ?? text;
  let fields = text.split(/\s+/);
  // six fields put seconds first: only whole minutes read as words
  if (fields.length === 6 && fields[0] === "0") fields = fields.slice(1);
  const zone = tz ? ` (${tz})` : " (the gateway's local time)";
  if (fields.length !== 5) return `cron ${expr}${zone}`;
  const [minute, hour, dom, month, dow] = fields as [string, string, string, string, string];
  const days = whichDays(dom, month, dow);
  const times = whichTimes(minute, hour);
  if (days === null || times === null) return `cron ${expr}${zone}`;
  return `${days === "every day" && times.startsWith("every") ? times : `${days} ${times}`}${zone}`;
}

/**
 * A schedule in words: "once, at 2026-12-05 09:00:00 UTC", "every 5 minutes", "Monday to Friday at 09:00 (UTC)".
 * A cron expression with no plain reading ("5 9-17 * * *") is shown as it is.
 */
export function scheduleInWords(schedule: JobSchedule): string {
  if (schedule.kind === "at") return `once, at ${utcText(schedule.at ?? "")}`;
  if (schedule.kind === "every") return interval(schedule.every_ms ?? 0);
  if (schedule.kind === "cron") return cronWords(schedule.expr ?? "", schedule.tz);
  return schedule.kind;
}
