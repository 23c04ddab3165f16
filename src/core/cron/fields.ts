import { PrxError } from "../errors.ts";

/** One field of a cron expression after parsing: the allowed values, sorted, plus a lookup table. */
export interface CronField {
  readonly name: FieldName;
  readonly values: readonly number[];
  readonly allowed: readonly boolean[];
  /** The field was `*` or `?` (possibly with a step): for day-of-month/day-of-week, "unrestricted" in vixie terms. */
  readonly star: boolean;
}

export type FieldName = "second" | "minute" | "hour" | "day-of-month" | "month" | "day-of-week";

interface FieldSpec {
  min: number;
  max: number;
  names?: readonly string[];
  /** Offset of names[0]. */
  namesFrom?: number;
  question?: boolean;
}

export const FIELD_SPECS: Record<FieldName, FieldSpec> = {
  second: { min: 0, max: 59 },
  minute: { min: 0, max: 59 },
  hour: { min: 0, max: 23 },
  "day-of-month": { min: 1, max: 31, question: true },
  month: {
    min: 1,
    max: 12,
    names: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"],
    namesFrom: 1,
  },
  // 0 and 7 are both Sunday.
  "day-of-week": {
    min: 0,
    max: 7,
    names: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"],
    namesFrom: 0,
    question: true,
  },
};

export function cronError(expression: string, field: FieldName | null, reason: string): PrxError {
  const where = field ? ` ${field} field` : "";
  return new PrxError("BAD_REQUEST", `cron schedule "${expression}":${where} ${reason}`, {
    hint:
      'use 5 fields "min hour day-of-month month day-of-week" or 6 fields ' +
      '"sec min hour day-of-month month day-of-week", ' +
      'e.g. "*/5 * * * *", or a macro like @hourly',
    details: { field, expression },
  });
}

function parseValue(expression: string, field: FieldName, spec: FieldSpec, text: string): number {
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    if (n < spec.min || n > spec.max) {
      throw cronError(expression, field, `value ${n} is out of range ${spec.min}-${spec.max}`);
    }
    return n;
  }
  const index = spec.names?.indexOf(text.toUpperCase()) ?? -1;
  if (index === -1) {
    const names = spec.names ? ` or a name (${spec.names.join(", ")})` : "";
    throw cronError(expression, field, `"${text}" is not a number${names}`);
  }
  return index + (spec.namesFrom ?? 0);
}

/** Parse one field: `*`, `?`, `n`, `a-b`, each optionally `/step`, comma-separated. */
export function parseField(expression: string, field: FieldName, text: string): CronField {
  const spec = FIELD_SPECS[field];
  const allowed: boolean[] = new Array(spec.max + 1).fill(false);
  let star = false;
  for (const part of text.split(",")) {
    if (part === "") throw cronError(expression, field, `has an empty list item in "${text}"`);
    const [range, stepText, extra] = part.split("/");
    if (extra !== undefined || range === undefined || range === "") {
      throw cronError(expression, field, `"${part}" is not a value, range or step`);
    }
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText) || Number(stepText) < 1 || Number(stepText) > spec.max - spec.min + 1) {
        throw cronError(expression, field, `step "${stepText}" in "${part}" must be 1..${spec.max - spec.min + 1}`);
      }
      step = Number(stepText);
    }
    let lo: number;
    let hi: number;
    if (range === "*" || (range === "?" && spec.question)) {
      if (text.split(",").length === 1) star = true;
      lo = spec.min;
      hi = spec.max;
    } else if (range.includes("-")) {
      const [a, b, more] = range.split("-");
      if (more !== undefined || !a || !b) throw cronError(expression, field, `"${range}" is not a range a-b`);
      lo = parseValue(expression, field, spec, a);
      hi = parseValue(expression, field, spec, b);
      if (lo > hi) throw cronError(expression, field, `range "${range}" runs backwards (${lo} > ${hi})`);
    } else {
      lo = parseValue(expression, field, spec, range);
      // "a/step" means from a to the maximum.
      hi = stepText === undefined ? lo : spec.max;
    }
    for (let v = lo; v <= hi; v += step) allowed[v] = true;
  }
  if (field === "day-of-week" && allowed[7]) {
    allowed[0] = true;
    allowed[7] = false;
  }
  const values: number[] = [];
  allowed.forEach((ok, v) => ok && values.push(v));
  return { name: field, values, allowed, star };
}

/** Smallest allowed value >= from, or -1. */
export function nextAllowed(field: CronField, from: number): number {
  for (const v of field.values) if (v >= from) return v;
  return -1;
}

/** Largest allowed value <= from, or -1. */
export function prevAllowed(field: CronField, from: number): number {
  for (let i = field.values.length - 1; i >= 0; i--) if (field.values[i]! <= from) return field.values[i]!;
  return -1;
}
